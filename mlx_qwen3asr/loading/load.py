"""Loading: a local folder or a Hugging Face hub id -> a ready model with its tokenizer.

    path or repo id -> folder (loading/hub.py: hub download if needed) -> config.json -> its family
       (families/registry.py: by model_type, the family's ModelArgs and Model)
    -> *.safetensors (loading/weights.py: single file or sharded) -> the family's names -> sanitize -> checked
    -> model (a recogniser, or the aligner: its `task` says which)

The same functions serve `load`, the converter and the tests: one name mapping, one config reader.
"""

from pathlib import Path
from typing import Optional, Union

import mlx.core as mx
import mlx.nn as nn

from ..families.registry import family_module, original_release, self_loading
from ..layers.from_checkpoint import check_weights, quantize_like_config
from ..runtime.allocator import keep_cpu_buffers
from ..runtime.device import exact_float32
from ..runtime.memory import ensure_memory
from ..text.jsonfile import read_json
from ..text.tokenizer import Tokenizer
from .device_path import install_path
from .hub import resolve_model_path
from .weights import read_weights, tensor_bytes

DEFAULT_MODEL = "Qwen/Qwen3-ASR-0.6B"  # what the CLI, the converter and the app load unless told
DTYPES = {"float16": mx.float16, "bfloat16": mx.bfloat16, "float32": mx.float32}
LOAD_OVERHEAD = (1.1, 512 * 2**20)  # decoding's own memory: +10 % of the weights and 512 MiB


def dtype_name(dtype: mx.Dtype) -> str:
    return next((name for name, value in DTYPES.items() if value == dtype), str(dtype))


def default_dtype() -> mx.Dtype:
    """float16 on a GPU; float32 on the CPU backend, whose half-precision matmuls are very slow."""
    return mx.float32 if mx.default_device() == mx.cpu else mx.float16


def slow_quantized_note(quantized: bool) -> str:
    """What to tell a user about to convert to, or run, a quantized model on MLX's CPU backend ("" elsewhere).

    MLX has no fast quantized matmul on the CPU: the 4-bit recipe decodes about 10x slower than
    float32 there (measured on Linux x86-64), while on a GPU it is the faster one.
    """
    if not quantized or mx.default_device() != mx.cpu:
        return ""
    return (
        "note: quantized models run about 10x slower than float32 on MLX's CPU backend; on this machine "
        "a float model (the original checkpoint, or a conversion with --bits 16 --encoder-bits 16) is faster"
    )


def read_config(folder: Path) -> dict:
    """config.json of `folder`, checked: a missing key or a wrong type is named with its file."""
    config_file = folder / "config.json"
    original = original_release(folder)
    if original is not None:
        raise FileNotFoundError(original.refusal(folder))
    if not config_file.exists():
        raise FileNotFoundError(f"No config.json in {folder}: not a model folder this package reads (docs/models.md)")
    config = read_json(config_file)
    try:
        model_args(config)
    except ValueError as e:
        raise ValueError(f"{config_file}: {e}") from e
    return config


def model_args(config: dict):
    """config.json -> the args of the family it names, checked."""
    return family_module(config).ModelArgs.from_dict(config)


def load_weights(folder: Path, config: Optional[dict] = None) -> dict[str, mx.array]:
    """All tensors of a folder under the names its family's sanitize takes (Qwen3-ASR: the official
    `thinker.*` ones), as stored (no casting). `config`: the folder's config.json (read when not given)."""
    return family_module(config if config is not None else read_config(folder)).checkpoint_names(read_weights(folder))


def skeleton(config: dict) -> nn.Module:
    """The model class config.json names (families/registry.py), with its sizes."""
    family = family_module(config)
    return family.Model(family.ModelArgs.from_dict(config))


def checked_skeleton(config: dict, weights: dict[str, mx.array]) -> tuple[nn.Module, dict[str, mx.array]]:
    """config.json + official-name weights -> a model skeleton (quantized as the config says) and its
    sanitized weights, checked against each other. Nothing is evaluated: both stay lazy."""
    model = skeleton(config)
    weights = model.sanitize(weights)
    if model.args.quantization:
        quantize_like_config(model, model.args.quantization, weights)
    check_weights(model, weights)
    return model, weights


def build_model(config: dict, weights: dict[str, mx.array], dtype: mx.Dtype) -> nn.Module:
    """config.json + official-name weights -> model with weights checked and cast to dtype."""
    model, weights = checked_skeleton(config, weights)
    weights = {k: v.astype(dtype) if mx.issubdtype(v.dtype, mx.floating) else v for k, v in weights.items()}
    model.load_weights(list(weights.items()))
    mx.eval(model.parameters())
    return model


def load(path_or_repo: Union[str, Path], dtype: Optional[Union[str, mx.Dtype]] = None) -> nn.Module:
    """Load a model folder (official or "-hf" checkpoint, converted MLX folder) or hub repo id: the class
    its config.json names (families/registry.py). Qwen3-ASR gives a `Qwen3ASR`; Fun-ASR-Nano's "-hf" checkpoint
    (FunAudioLLM/Fun-ASR-Nano-2512-hf) a `FunAsrNano`, used the same way; a Qwen3-ForcedAligner checkpoint
    (Qwen/Qwen3-ForcedAligner-0.6B) a `ForcedAligner` for `align`; pyannote/speaker-diarization-community-1
    (its config.yaml names the pipeline) a `Diarizer` for `diarize`.

    `dtype`: "float16", "bfloat16" or "float32" (default: float16 on a GPU, float32 on the CPU).
    The returned model carries its `tokenizer` and the `path` it was loaded from.
    """
    if isinstance(dtype, str):
        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got '{dtype}'")
        dtype = DTYPES[dtype]
    folder = resolve_model_path(path_or_repo)
    if (family := self_loading(folder)) is not None:
        model = family.load_folder(folder, dtype or default_dtype())  # its own layout (pyannote keeps float32)
        return install_path(model) if hasattr(model, "cpu_swaps") else model  # the device's path, as below
    keep_cpu_buffers()
    config, dtype = read_config(folder), dtype or default_dtype()
    tied = model_args(config).text.tie_word_embeddings
    scale, extra = LOAD_OVERHEAD
    ensure_memory(int(tensor_bytes(folder, dtype, tied) * scale) + extra, f"load {folder} as {dtype_name(dtype)}")
    exact_float32(dtype)  # before any float32 product on a GPU (runtime/device.py)
    model = build_model(config, load_weights(folder, config), dtype)
    install_path(model)  # the device picks the path, once (loading/device_path.py)
    model.tokenizer = Tokenizer.from_dir(folder, model.tokenizer_split_pattern)
    model.path = folder
    return model
