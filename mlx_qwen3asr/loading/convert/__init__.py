"""Conversion: official checkpoint -> MLX folder (cast, quantized), written atomically, checked."""

from .converter import Progress, convert
from .recipe import ConversionResult, Recipe

__all__ = ["ConversionResult", "Progress", "Recipe", "convert"]
