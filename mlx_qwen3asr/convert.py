"""Converted MLX model folders: the loaded model's own tensors plus the source's config and tokenizer.

    source folder -> load (one loader for everything) -> [cast] -> save_model -> MLX folder

A converted folder holds `config.json` (the source's, plus a `quantization` entry when quantized),
weights under this package's module names in MLX layout, and the tokenizer files; `load` opens it
like any other checkpoint because `sanitize` leaves already-converted names and layouts alone.
"""

import json
import shutil
from pathlib import Path
from typing import Optional

import mlx.core as mx
from mlx.utils import tree_flatten

from .load import read_config
from .model import Qwen3ASR

SIDE_FILES = (
    "vocab.json",
    "merges.txt",
    "tokenizer_config.json",
    "tokenizer.json",
    "chat_template.json",
    "generation_config.json",
    "preprocessor_config.json",
)


def save_model(model: Qwen3ASR, out_dir: Path, quantization: Optional[dict] = None) -> Path:
    """Write `model` (loaded from `model.path`) as an MLX folder at out_dir."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    config = read_config(model.path)
    config.pop("quantization", None)
    if quantization:
        config["quantization"] = quantization
    weights = dict(tree_flatten(model.parameters()))
    mx.save_safetensors(str(out_dir / "model.safetensors"), weights, metadata={"format": "mlx"})
    (out_dir / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False))
    for name in SIDE_FILES:
        if (model.path / name).exists():
            shutil.copy2(model.path / name, out_dir / name)
    return out_dir
