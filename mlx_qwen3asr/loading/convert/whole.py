"""Conversion of a model that loads its own release (families/registry.py: `load_folder`; SenseVoiceSmall) -> an MLX folder.

    release folder -> family.load_folder(folder, float32) -> every Linear/Embedding the recipe plans
    (recipe.quantization_plan: the model's keep_float stays float; rows no group divides stay float)
    quantized in place -> cast to the recipe's dtype -> model.safetensors (module names)
    + config.json (model.converted_config() + the "quantization" entry) + model.side_files() copied

The whole model is in memory once (SenseVoiceSmall: 234 M parameters, 0.9 GB in float32): these models are
small, so the layer-by-layer streaming of the decoder families is not needed here.
"""

import json
import shutil
import time
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
from mlx.utils import tree_flatten

from ..load import DTYPES
from .recipe import ConversionResult, Recipe, quantization_entry, quantization_plan
from .writer import ShardWriter, staging_folder


def convert_whole(
    family, folder: Path, out_dir: Path, recipe: Recipe, force: bool, max_shard_bytes: int
) -> ConversionResult:
    """`family`'s model of `folder` written to out_dir as the recipe says; returns a ConversionResult."""
    start = time.perf_counter()
    model = family.load_folder(folder, mx.float32)
    if not hasattr(model, "converted_config"):
        raise ValueError(
            f"{folder} holds a model this converter does not write ({type(model).__name__}): use it as it is"
        )
    source_bytes = sum(v.nbytes for _, v in tree_flatten(model.parameters()))
    plan = quantization_plan(model, recipe)
    dtype = DTYPES[recipe.dtype]
    model.set_dtype(dtype)
    nn.quantize(model, class_predicate=lambda path, _: dict(plan.get(path) or {}) or False)
    mx.reset_peak_memory()
    with staging_folder(out_dir, force) as staging:
        writer = ShardWriter(staging, max_shard_bytes)
        tensors = dict(tree_flatten(model.parameters()))
        mx.eval(tensors)
        writer.add(tensors)
        output_bytes = writer.finish()
        quantization = quantization_entry(plan)
        config = {**model.converted_config(), **({"quantization": quantization} if quantization else {})}
        (staging / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
        for path in model.side_files():
            shutil.copy2(path, staging / Path(path).name)
    seconds = time.perf_counter() - start
    return ConversionResult(out_dir, folder, source_bytes, output_bytes, quantization, seconds, mx.get_peak_memory())
