"""Conversion: official checkpoint -> MLX folder (cast, quantized), written atomically, checked."""

from .converter import (
    BITS,
    FLOAT,
    GROUP_SIZES,
    MAX_SHARD_BYTES,
    MODEL_TYPE,
    SIDE_FILES,
    STEM_PREFIX,
    ConversionResult,
    Progress,
    Recipe,
    conversion_blocks,
    convert,
    convert_block,
    quantization_entry,
    quantization_plan,
    source_config,
)

__all__ = [
    "BITS", "FLOAT", "GROUP_SIZES", "MAX_SHARD_BYTES", "MODEL_TYPE", "SIDE_FILES", "STEM_PREFIX",
    "ConversionResult", "Progress", "Recipe", "conversion_blocks", "convert", "convert_block",
    "quantization_entry", "quantization_plan", "source_config",
]  # fmt: skip
