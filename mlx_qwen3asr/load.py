"""Loading: a local folder or a Hugging Face hub id -> a ready model with its tokenizer.

    path or repo id -> folder (hub download if needed) -> config.json -> its family (FAMILIES, by
       model_type: qwen3_asr -> ModelArgs and a Qwen3ASR, qwen3_forced_aligner -> a ForcedAligner,
       fun_asr_nano -> FunAsrNanoArgs and a FunAsrNano)
    -> *.safetensors (single file or sharded) -> the family's names -> sanitize -> checked -> model

The same functions serve `load`, the converter and the tests: one name mapping, one config reader.
"""

import json
import math
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import mlx.core as mx
import mlx.nn as nn
from mlx.utils import tree_flatten

from .align.model import AlignerArgs, ForcedAligner, is_aligner_config
from .allocator import keep_cpu_buffers
from .funasr.config import MODEL_TYPE as FUNASR_MODEL_TYPE
from .funasr.config import FunAsrNanoArgs
from .funasr.model import FunAsrNano
from .funasr.original import is_original as is_original_funasr
from .jsonfile import corrupt, read_json
from .layout import DOWNLOAD_PATTERNS, official_name
from .memory import ensure_memory
from .model import two_stream_layers
from .model.config import ModelArgs
from .model.model import Qwen3ASR
from .pyannote import DIARIZER_FILES, Diarizer, is_diarizer_folder
from .tokenizer import Tokenizer

DEFAULT_MODEL = "Qwen/Qwen3-ASR-0.6B"  # what the CLI, the converter and the app load unless told
DTYPES = {"float16": mx.float16, "bfloat16": mx.bfloat16, "float32": mx.float32}
SAFETENSORS_ITEMSIZE = {
    "F64": 8,
    "F32": 4,
    "F16": 2,
    "BF16": 2,
    "I64": 8,
    "U64": 8,
    "I32": 4,
    "U32": 4,
    "I16": 2,
    "U16": 2,
    "I8": 1,
    "U8": 1,
    "BOOL": 1,
}
SAFETENSORS_FLOATS = {"F64", "F32", "F16", "BF16"}
TIED_HEAD_NAMES = ("thinker.lm_head.", "lm_head.")
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


def resolve_model_path(path_or_repo: Union[str, Path]) -> Path:
    """A local folder as is; anything else is treated as a hub repo id and downloaded (or found cached)."""
    path = Path(path_or_repo).expanduser()
    if path.is_dir():
        return path
    if path.exists() or str(path_or_repo).startswith((".", "/", "~")):
        raise FileNotFoundError(f"Model folder not found: {path} (expected a folder with config.json)")
    return _download(str(path_or_repo))


def _download(repo_id: str) -> Path:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError, RepositoryNotFoundError

    try:
        return Path(snapshot_download(repo_id, allow_patterns=[*DOWNLOAD_PATTERNS, *DIARIZER_FILES]))
    except RepositoryNotFoundError as e:
        raise FileNotFoundError(
            f"'{repo_id}' is neither a local folder nor a model on the Hugging Face hub. "
            "Pass the path of a downloaded model folder, or a repo id such as Qwen/Qwen3-ASR-0.6B."
        ) from e
    except LocalEntryNotFoundError as e:
        offline = os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0")
        why = "HF_HUB_OFFLINE is set" if offline else "the hub could not be reached"
        raise FileNotFoundError(
            f"Cannot get '{repo_id}': {why} and it is not in the local cache "
            f"({os.environ.get('HF_HOME', '~/.cache/huggingface')}). Download it where there is a network "
            f"(hf download {repo_id} --local-dir FOLDER) and pass the local folder instead."
        ) from e


@dataclass(frozen=True)
class Family:
    """A model family: how its config.json is read, its model class, its tensor names as sanitize takes them."""

    args: Callable[[dict], Any]
    model: Callable[[Any], nn.Module]
    names: Callable[[dict[str, mx.array]], dict[str, mx.array]]


def to_official_names(weights: dict[str, mx.array]) -> dict[str, mx.array]:
    """Rename "-hf" layout tensors to the official Qwen3-ASR ones; official names pass through."""
    return {official_name(name): value for name, value in weights.items()}


QWEN3_ASR = Family(ModelArgs.from_dict, Qwen3ASR, to_official_names)
ALIGNER = Family(AlignerArgs.from_dict, ForcedAligner, to_official_names)
FUN_ASR_NANO = Family(FunAsrNanoArgs.from_dict, FunAsrNano, dict)  # "-hf" names are its module names
# config.json's model_type -> family (Qwen3-ASR also when absent; the aligner's sits in thinker_config).
FAMILIES = {"qwen3_asr": QWEN3_ASR, FUNASR_MODEL_TYPE: FUN_ASR_NANO}


def family(config: dict) -> Family:
    """The family config.json names: by model_type, never by guessing from sizes or tensor names."""
    if is_aligner_config(config):
        return ALIGNER
    return FAMILIES.get(config.get("model_type"), QWEN3_ASR)


def model_args(config: dict):
    """config.json -> the family's args (ModelArgs, AlignerArgs or FunAsrNanoArgs), checked."""
    return family(config).args(config)


def read_config(folder: Path) -> dict:
    """config.json of `folder`, checked: a missing key or a wrong type is named with its file."""
    config_file = folder / "config.json"
    if is_original_funasr(folder):
        raise FileNotFoundError(
            f"{folder} is the original FunASR release (model.pt): convert it once with scripts/convert.sh --model "
            f"{folder} -o FOLDER (needs torch), or use the transformers release FunAudioLLM/Fun-ASR-Nano-2512-hf"
        )
    if not config_file.exists():
        raise FileNotFoundError(f"No config.json in {folder}: not a model folder (Qwen3-ASR or Fun-ASR-Nano)")
    config = read_json(config_file)
    try:
        model_args(config)
    except ValueError as e:
        raise ValueError(f"{config_file}: {e}") from e
    return config


def weight_files(folder: Path) -> list[Path]:
    index = folder / "model.safetensors.index.json"
    if index.exists():
        names = sorted(set(read_json(index)["weight_map"].values()))
        missing = [n for n in names if not (folder / n).exists()]
        if missing:
            raise FileNotFoundError(f"{index} lists shards that are missing: {', '.join(missing)}")
        return [folder / n for n in names]
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise FileNotFoundError(
            f"No *.safetensors in {folder}: convert a checkpoint into it (mlx-qwen3asr-convert) or download the model"
        )
    return files


def safetensors_header(file: Path) -> dict:
    """A safetensors file's header (8-byte little-endian length, then JSON: name -> dtype, shape,
    data_offsets), checked against the file's size, so that a cut-off or empty download is one line
    naming the file and the fix before MLX reads a byte of it."""
    size = file.stat().st_size
    try:
        with open(file, "rb") as f:
            if size < 8:
                raise ValueError(f"{size} bytes, shorter than a safetensors header")
            length = struct.unpack("<Q", f.read(8))[0]
            if 8 + length > size:
                raise ValueError(f"its header declares {length} bytes, the file holds {size}")
            header = json.loads(f.read(length))
        tensors = [entry for name, entry in header.items() if name != "__metadata__"]
        end = 8 + length + max((entry["data_offsets"][1] for entry in tensors), default=0)
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError, KeyError, IndexError, TypeError) as e:
        raise corrupt(file, f"unreadable header: {e}") from e
    except ValueError as e:
        raise corrupt(file, e) from e
    if end > size:
        raise corrupt(file, f"its tensors need {end} bytes, the file holds {size}")
    return header


def tensor_bytes(folder: Path, dtype: mx.Dtype, tied_head: bool = False) -> int:
    """Bytes the folder's tensors take in memory once floating ones are cast to `dtype`, read from
    the safetensors headers without loading anything. `tied_head`: a stored lm_head is a copy of the
    embedding that sanitize drops, so it is not counted."""
    total = 0
    for file in weight_files(folder):
        for name, entry in safetensors_header(file).items():
            if name == "__metadata__" or (tied_head and name.startswith(TIED_HEAD_NAMES)):
                continue
            size = SAFETENSORS_ITEMSIZE.get(entry["dtype"], 4)
            numel = math.prod(entry["shape"])
            total += numel * (dtype.size if entry["dtype"] in SAFETENSORS_FLOATS else size)
    return total


def read_weights(folder: Path) -> dict[str, mx.array]:
    """All tensors of a folder under their stored names, as stored (no casting)."""
    weights = {}
    for file in weight_files(folder):
        safetensors_header(file)  # a cut-off file is named before MLX reads it
        try:
            weights.update(mx.load(str(file)))
        except (RuntimeError, ValueError) as e:
            raise corrupt(file, e) from e
    return weights


def load_weights(folder: Path, config: Optional[dict] = None) -> dict[str, mx.array]:
    """All tensors of a folder under the names its family's sanitize takes (Qwen3-ASR: the official
    `thinker.*` ones), as stored (no casting). `config`: the folder's config.json (read when not given)."""
    return family(config if config is not None else read_config(folder)).names(read_weights(folder))


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


def skeleton(config: dict) -> Qwen3ASR:
    """The model class config.json names, with its sizes: a Qwen3ASR, a ForcedAligner or a FunAsrNano."""
    chosen = family(config)
    return chosen.model(chosen.args(config))


def checked_skeleton(config: dict, weights: dict[str, mx.array]) -> tuple[Qwen3ASR, dict[str, mx.array]]:
    """config.json + official-name weights -> a model skeleton (quantized as the config says) and its
    sanitized weights, checked against each other. Nothing is evaluated: both stay lazy."""
    model = skeleton(config)
    weights = model.sanitize(weights)
    if model.args.quantization:
        quantize_like_config(model, model.args.quantization, weights)
    check_weights(model, weights)
    return model, weights


def build_model(config: dict, weights: dict[str, mx.array], dtype: mx.Dtype) -> Qwen3ASR:
    """config.json + official-name weights -> model with weights checked and cast to dtype."""
    model, weights = checked_skeleton(config, weights)
    weights = {k: v.astype(dtype) if mx.issubdtype(v.dtype, mx.floating) else v for k, v in weights.items()}
    model.load_weights(list(weights.items()))
    mx.eval(model.parameters())
    return model


def load(path_or_repo: Union[str, Path], dtype: Optional[Union[str, mx.Dtype]] = None) -> Qwen3ASR:
    """Load a Qwen3-ASR model: official or "-hf" checkpoint, converted MLX folder, or hub repo id.
    A Qwen3-ForcedAligner checkpoint (Qwen/Qwen3-ForcedAligner-0.6B) gives a `ForcedAligner` for `align`;
    a Fun-ASR-Nano "-hf" checkpoint (FunAudioLLM/Fun-ASR-Nano-2512-hf) a `FunAsrNano`, used the same way;
    pyannote/speaker-diarization-community-1 (its config.yaml names the pipeline) a `Diarizer` for `diarize`.

    `dtype`: "float16", "bfloat16" or "float32" (default: float16 on a GPU, float32 on the CPU).
    The returned model carries its `tokenizer` and the `path` it was loaded from.
    """
    if isinstance(dtype, str):
        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got '{dtype}'")
        dtype = DTYPES[dtype]
    folder = resolve_model_path(path_or_repo)
    if is_diarizer_folder(folder):
        return Diarizer.from_folder(folder)  # pyannote/speaker-diarization-community-1 (always float32)
    keep_cpu_buffers()
    config, dtype = read_config(folder), dtype or default_dtype()
    tied = model_args(config).text.tie_word_embeddings
    scale, extra = LOAD_OVERHEAD
    ensure_memory(int(tensor_bytes(folder, dtype, tied) * scale) + extra, f"load {folder} as {dtype_name(dtype)}")
    model = build_model(config, load_weights(folder, config), dtype)
    two_stream_layers.install(model)  # a CPU tactic, swapped in (no-op elsewhere)
    model.tokenizer = Tokenizer.from_dir(folder, model.tokenizer_split_pattern)
    model.path = folder
    return model
