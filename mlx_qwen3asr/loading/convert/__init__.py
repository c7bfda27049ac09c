"""Conversion: official checkpoint -> MLX folder (cast, quantized), written atomically, checked."""

from .converter import ConversionResult, Progress, Recipe, convert

__all__ = ["ConversionResult", "Progress", "Recipe", "convert"]
