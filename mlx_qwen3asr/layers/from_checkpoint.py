"""A module's weights from a checkpoint: quantized as its config.json says, then checked against the
module, every problem named. The one rule for every loader: loading/load.py's common road, and the
families that load their own releases (SenseVoiceSmall's converted folders)."""

import mlx.core as mx
import mlx.nn as nn
from mlx.utils import tree_flatten


def quantize_like_config(model: nn.Module, quantization: dict, weights: dict[str, mx.array]) -> None:
    """Quantize exactly the modules that config.json's quantization entry says (mlx-lm's rule).

    quantization = {"group_size": 64, "bits": 4, "mode": "affine",        # defaults
                    "audio_tower.layers.0.fc1": {"group_size": 64, "bits": 8, ...},  # this module so
                    "audio_tower.conv_out": false}                          # this module stays float
    A module path with an entry follows it; any other quantizable module takes the defaults when
    its `.scales` tensor is stored (folders written by mlx-lm) and stays float otherwise. Tensor
    shapes are never used to guess bits: a mismatch surfaces in check_weights as mis-shaped tensors.
    """
    defaults = {k: quantization[k] for k in ("group_size", "bits", "mode") if k in quantization}

    def predicate(path: str, module: nn.Module):
        if path in quantization:
            entry = quantization[path]
            if not isinstance(entry, (dict, bool)):
                raise ValueError(f"config.json quantization[{path!r}] must be a dict of parameters or false")
            return dict(entry) if isinstance(entry, dict) else entry
        return hasattr(module, "to_quantized") and f"{path}.scales" in weights

    nn.quantize(model, **defaults, class_predicate=predicate)


def check_weights(model: nn.Module, weights: dict[str, mx.array]) -> None:
    """Raise naming every missing, unexpected, mis-shaped or mis-typed tensor."""
    expected = dict(tree_flatten(model.parameters()))
    missing = sorted(set(expected) - set(weights))
    unexpected = sorted(set(weights) - set(expected))
    misshaped = [
        f"{k}: checkpoint {tuple(weights[k].shape)} vs model {tuple(v.shape)}"
        for k, v in expected.items()
        if k in weights and weights[k].shape != v.shape
    ]
    # A quantized module's packed weight is uint32; stored as floats (a folder re-saved by a tool that
    # cast every tensor) it would load, then fail in the first matmul.
    mistyped = [
        f"{k}: checkpoint {weights[k].dtype} vs model {v.dtype}"
        for k, v in expected.items()
        if k in weights and mx.issubdtype(weights[k].dtype, mx.floating) != mx.issubdtype(v.dtype, mx.floating)
    ]
    problems = [
        f"{label} ({len(items)}): {', '.join(items[:8])}{' ...' if len(items) > 8 else ''}"
        for label, items in (
            ("missing", missing),
            ("unexpected", unexpected),
            ("mis-shaped", misshaped),
            ("mis-typed", mistyped),
        )
        if items
    ]
    if problems:
        raise ValueError("Checkpoint does not match its config.json: " + "; ".join(problems))
