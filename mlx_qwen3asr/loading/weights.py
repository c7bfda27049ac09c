"""A model folder's tensors: its safetensors files (single or sharded), their headers checked against the
files' sizes before MLX reads a byte, sizes counted without loading, then the tensors as stored."""

import json
import math
import struct
from pathlib import Path

import mlx.core as mx

from ..text.jsonfile import corrupt, read_json

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
TIED_HEAD_NAMES = ("thinker.lm_head.", "lm_head.")  # a stored copy of a tied head, dropped by sanitize


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
