"""What a conversion stores, and what it reports: the Recipe (bits, encoder bits, group size, dtype), the
quantization plan it gives a model (the family's keep_float and audio_prefixes decide per module), the
config.json entry that records it (mlx-lm's form), and the ConversionResult. converter.py (layer by
layer) and whole.py (a model loaded whole) write with these."""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import mlx.nn as nn

from ...families.recogniser import Recogniser
from ..load import DTYPES

FLOAT = 16  # `bits` value meaning "leave these layers in float"
BITS = (4, 8, FLOAT)
GROUP_SIZES = (32, 64, 128)


@dataclass(frozen=True)
class Recipe:
    """What to store: decoder/embedding bits, encoder bits (16 = float), group size, float dtype."""

    bits: int = 4
    encoder_bits: int = 8
    group_size: int = 64
    dtype: str = "float16"

    @property
    def name(self) -> str:
        """Short name for folders and messages: "4bit-enc8" for the default recipe."""
        bits = lambda b: "float" if b == FLOAT else f"{b}bit"  # noqa: E731
        return f"{bits(self.bits)}-enc{bits(self.encoder_bits).removesuffix('bit')}"

    def check(self, allow_4bit_encoder: bool = False) -> None:
        for name, value in (("bits", self.bits), ("encoder_bits", self.encoder_bits)):
            if value not in BITS:
                raise ValueError(f"{name}={value} is not supported: use 4 or 8 (or 16 to keep float)")
        if self.group_size not in GROUP_SIZES:
            raise ValueError(f"group_size={self.group_size} is not supported: use 32, 64 or 128")
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype '{self.dtype}' is not supported: use {', '.join(DTYPES)}")
        if self.encoder_bits == 4 and not allow_4bit_encoder:
            raise ValueError(
                "a 4-bit audio encoder can collapse transcripts to empty output: use encoder_bits=8 "
                "(--encoder-bits 8), or pass allow_4bit_encoder=True (--allow-4bit-encoder) to accept the risk"
            )

    def params_for(self, module: nn.Module, audio: bool) -> Optional[dict]:
        """to_quantized() parameters for one module (of the audio side: at encoder_bits), or None to keep
        it float."""
        if not hasattr(module, "to_quantized"):
            return None
        bits = self.encoder_bits if audio else self.bits
        if bits == FLOAT or module.weight.shape[-1] % self.group_size:
            return None  # (tiny test models have rows shorter than a group of 128)
        return {"group_size": self.group_size, "bits": bits, "mode": "affine"}


@dataclass
class ConversionResult:
    folder: Path
    source: Path
    source_bytes: int  # the source's safetensors files
    output_bytes: int  # the output's tensors
    quantization: Optional[dict]
    seconds: float
    peak_memory_bytes: int  # MLX's peak allocation during the conversion


def quantization_plan(model: Recogniser, recipe: Recipe) -> dict[str, Optional[dict]]:
    """Every quantizable module path -> its to_quantized() parameters, or None (float). The family says
    which modules stay float (keep_float) and which are its audio side (audio_prefixes)."""
    return {
        path: None
        if path.startswith(model.keep_float)
        else recipe.params_for(module, path.startswith(model.audio_prefixes))
        for path, module in model.named_modules()
        if hasattr(module, "to_quantized")
    }


def quantization_entry(plan: dict[str, Optional[dict]]) -> Optional[dict]:
    """The config.json entry: the most common parameters as defaults, other paths spelled out."""
    used = [json.dumps(p, sort_keys=True) for p in plan.values() if p]
    if not used:
        return None
    default = json.loads(max(used, key=used.count))  # ties: the first in module order
    entry: dict = dict(default)
    for path, params in plan.items():
        if params != default:
            entry[path] = params or False
    return entry
