"""Start-up: the model, downloaded and converted on first use, loaded.

--model FOLDER            -> loaded as it is
--model HUB_ID (default)  -> hub cache (huggingface_hub shows download progress bars)
    on a GPU: converted once to the 4-bit decoder / 8-bit encoder recipe into
    CONVERTED_CACHE/<owner>--<name>-4bit-enc8, which later runs load directly
    on the CPU backend: loaded as downloaded, in float32 (quantized matmuls are slow there)
"""

import os
from collections.abc import Callable
from pathlib import Path
from typing import Optional

import mlx.core as mx

import mlx_qwen3asr as mq
from mlx_qwen3asr.loading.load import slow_quantized_note

from .errors import AppError

CONVERTED_CACHE = Path(os.environ.get("MLX_QWEN3ASR_CACHE", "~/.cache/mlx-qwen3asr")).expanduser()
Say = Callable[[str], None]
Progress = Callable[[str, int, int], None]  # the converter's (stage, bytes done, stage total)


def hub_cache() -> str:
    return os.environ.get("HF_HUB_CACHE") or os.path.join(
        os.environ.get("HF_HOME", os.path.expanduser("~/.cache/huggingface")), "hub"
    )


def converted_folder(repo_id: str, cache: Path = CONVERTED_CACHE) -> Path:
    from mlx_qwen3asr.loading.convert import Recipe

    return cache / f"{repo_id.strip('/').replace('/', '--')}-{Recipe().name}"


def converted_model(source: str, target: Path, say: Say, progress: Optional[Progress] = None) -> Path:
    """`target`, converting `source` (hub id or folder) into it first if it is not there yet."""
    if (target / "config.json").exists():
        return target
    from mlx_qwen3asr.loading.convert import Recipe, convert

    say(f"converting {source} once to 4-bit decoder / 8-bit encoder into {target}")
    try:
        convert(source, target, Recipe(), progress=progress)
    except (FileNotFoundError, ValueError, MemoryError) as e:
        raise AppError(f"Cannot convert model {source!r}: {e}") from e
    return target


def load_model(
    name: str, dtype: Optional[str], say: Say, convert: bool = True, progress: Optional[Progress] = None
) -> "mq.Recogniser":
    """Load `name` (folder or hub id), converting a hub model on first use where that pays off."""
    path: object = name
    is_folder = Path(name).expanduser().exists() or name.startswith((".", "/", "~"))
    if not is_folder:
        say(f"model {name}: hub cache {hub_cache()} (downloaded there on first use)")
        if convert and mx.default_device() != mx.cpu:
            path = converted_model(name, converted_folder(name), say, progress)
    try:
        model = mq.load(path, dtype=dtype)
    except (FileNotFoundError, ValueError, MemoryError) as e:
        raise AppError(f"Cannot load model {name!r}: {e}") from e
    note = slow_quantized_note(bool(model.args.quantization))
    if note:
        say(note)
    return model
