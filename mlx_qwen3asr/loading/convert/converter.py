"""Conversion: an official or "-hf" checkpoint -> an MLX folder, cast and optionally quantized.

    source folder / hub id -> config.json (checked) -> lazy tensors (mx.load reads on eval)
    -> sanitize + check against the config, on a model skeleton whose parameters are never evaluated
    -> for each encoder layer, each decoder layer, then the rest (conv stem, norms, projections,
       tied embedding): read its tensors -> cast to dtype -> nn.quantize(block, recipe predicate)
       -> hand the result to the shard writer (a new shard before one would pass ~2 GB)
    -> config.json (+ "quantization"), tokenizer files -> staging folder renamed onto the target

Memory: only one block of source tensors is in memory at a time, plus the output shard being
filled, so a conversion never holds two copies of the model; that much is checked against the
available memory before anything is read (memory.ensure_memory). A failure anywhere deletes the
staging folder; the target appears only complete.

Recipe (the default keeps the transcript): decoder Linear layers and the tied embedding at `bits`
(the embedding is quantized once and serves as the LM head through `as_linear`), encoder Linear
layers (attention, fc1/fc2, proj1/proj2) at `encoder_bits`. A 4-bit encoder is refused unless
asked for: it carries most of the 4-bit loss, and other ports saw it collapse transcripts to empty
output. Norms and biases stay float, and what the family keeps float (its `keep_float`: Qwen3-ASR's conv stem,
conv2d1-3 and its conv_out projection).
config.json records the top-level `group_size`/`bits`/`mode` (mlx-lm style) plus, per module path,
a dict for modules quantized differently and `false` for quantizable modules kept float, so
`load` rebuilds exactly these modules without looking at tensor shapes.

A Fun-ASR-Nano "-hf" checkpoint converts the same way: its SAN-M encoder layers and its adaptor
(`multi_modal_projector`: its `audio_prefixes`) are the audio side at `encoder_bits` (encoder layer 0, 560 inputs, fits no
group size and stays float), its decoder and tied embedding at `bits`; the FSMN convolutions stay float.
A Qwen3-ForcedAligner converts the same way (its model class comes from config.json); its classifier
head stays float (ForcedAligner.keep_float), and the fidelity check compares timestamps instead of tokens.
"""

import json
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Optional, Union

import mlx.core as mx
import mlx.nn as nn
from mlx.utils import tree_flatten

from ...families.recogniser import Recogniser
from ...families.registry import FAMILIES, model_type, original_release, self_loading
from ...runtime.memory import ensure_memory
from ..hub import resolve_model_path
from ..layout import SIDE_FILES
from ..load import DTYPES, LOAD_OVERHEAD, checked_skeleton, load_weights, read_config
from ..weights import weight_files
from .recipe import ConversionResult, Recipe, quantization_entry, quantization_plan
from .whole import convert_whole
from .writer import ShardWriter, staging_folder

MAX_SHARD_BYTES = 2_000_000_000
# progress(stage, bytes_done_now, stage_total_bytes): stage is "read", "quantize" or "write".
Progress = Callable[[str, int, int], None]


def source_config(folder: Path) -> dict:
    """config.json of a float Qwen3-ASR or Fun-ASR-Nano checkpoint, or an error saying what is wrong with it."""
    config = read_config(folder)  # checked: its family's keys (an unknown model_type is refused there)
    assert model_type(config) in FAMILIES
    if config.get("quantization"):
        raise ValueError(f"{folder} is already quantized: convert from the original float checkpoint instead")
    return config


def convert(
    source: Union[str, Path],
    out_dir: Union[str, Path],
    recipe: Recipe = Recipe(),
    *,
    force: bool = False,
    allow_4bit_encoder: bool = False,
    max_shard_bytes: int = MAX_SHARD_BYTES,
    progress: Optional[Progress] = None,
) -> ConversionResult:
    """Convert `source` (folder or hub id) into an MLX folder at out_dir that `load` opens.

    Raises ValueError for an unsupported recipe or a source that is not a float Qwen3-ASR
    checkpoint, FileNotFoundError for missing files, FileExistsError when out_dir exists and
    `force` is not set. Nothing is left at out_dir unless the conversion completed.
    """
    start = time.perf_counter()
    recipe.check(allow_4bit_encoder)
    folder = resolve_model_path(source)
    out_dir = Path(out_dir).expanduser()
    _check_target(folder, out_dir, force)
    family = self_loading(folder)
    if family is not None:  # a release of its own layout: loaded whole, quantized, written
        return convert_whole(family, folder, out_dir, recipe, force, max_shard_bytes)
    original = original_release(folder)
    if original is not None:  # e.g. FunASR's model.pt release: through a temporary "-hf" copy (needs torch)
        hf_folder, scratch = original.hf_from_original(folder)
        with scratch:
            return convert(hf_folder, out_dir, recipe, force=force, allow_4bit_encoder=allow_4bit_encoder,
                           max_shard_bytes=max_shard_bytes, progress=progress)  # fmt: skip
    config = source_config(folder)
    # A lazy skeleton whose parameters are never evaluated; each weight is read when evaluated.
    model, weights = checked_skeleton(config, load_weights(folder, config))
    plan = quantization_plan(model, recipe)
    planned = _planned_bytes(weights, plan, recipe.dtype)
    largest = max(v.nbytes for v in weights.values()) * 3  # a source tensor, its cast and its quantized form
    ensure_memory(min(planned, max_shard_bytes) + largest + LOAD_OVERHEAD[1], f"convert {folder}")
    sizes = {"read": sum(v.nbytes for v in weights.values()), "quantize": planned, "write": planned}
    report = (lambda stage, n: progress(stage, n, sizes[stage])) if progress else (lambda stage, n: None)
    mx.reset_peak_memory()
    with staging_folder(out_dir, force) as staging:
        writer = ShardWriter(staging, max_shard_bytes, on_write=lambda n: report("write", n))
        for prefix, block in conversion_blocks(model):
            writer.add(convert_block(block, prefix, weights, plan, DTYPES[recipe.dtype], report))
            mx.clear_cache()
        output_bytes = writer.finish()
        quantization = quantization_entry(plan)
        _write_side_files(folder, staging, config, quantization)
    source_bytes = sum(f.stat().st_size for f in weight_files(folder))  # as downloaded (official: + lm_head copy)
    seconds = time.perf_counter() - start
    return ConversionResult(out_dir, folder, source_bytes, output_bytes, quantization, seconds, mx.get_peak_memory())


def conversion_blocks(model: Recogniser) -> Iterator[tuple[str, nn.Module]]:
    """Each encoder and decoder layer on its own, then the model without its layers (the rest).

    The layers are detached from the skeleton as they are handed out, so a converted layer is
    freed once its tensors are written.
    """
    for prefix, owner in model.layer_stacks():
        layers, owner.layers = owner.layers, []
        for i in range(len(layers)):
            yield f"{prefix}.{i}", layers[i]
            layers[i] = None
    yield "", model


def convert_block(
    block: nn.Module,
    prefix: str,
    weights: dict[str, mx.array],
    plan: dict[str, Optional[dict]],
    dtype: mx.Dtype,
    report: Callable[[str, int], None],
) -> dict[str, mx.array]:
    """One block's source tensors (popped from `weights`) -> its output tensors, full names."""
    join = lambda name: f"{prefix}.{name}" if prefix else name  # noqa: E731
    tensors = {name: weights.pop(join(name)) for name, _ in tree_flatten(block.parameters())}
    mx.eval(tensors)
    report("read", sum(v.nbytes for v in tensors.values()))
    block.load_weights([(k, v.astype(dtype)) for k, v in tensors.items()])  # checkpoints hold only floats
    del tensors  # each source array is freed as soon as its cast is evaluated
    nn.quantize(block, class_predicate=lambda path, _: dict(plan.get(join(path)) or {}) or False)
    out = {join(name): value for name, value in tree_flatten(block.parameters())}
    mx.eval(out)
    report("quantize", sum(v.nbytes for v in out.values()))
    return out


def _planned_bytes(weights: dict[str, mx.array], plan: dict[str, Optional[dict]], dtype: str) -> int:
    """Bytes of the output tensors: packed weights, plus a float scale and bias per group."""
    itemsize = DTYPES[dtype].size
    total = 0
    for name, value in weights.items():
        params = plan.get(name.removesuffix(".weight")) if name.endswith(".weight") else None
        if params:
            total += value.size * params["bits"] // 8 + 2 * (value.size // params["group_size"]) * itemsize
        else:
            total += value.size * itemsize
    return total


def _check_target(source: Path, out_dir: Path, force: bool) -> None:
    if out_dir.resolve() == source.resolve():
        raise ValueError(f"the output folder {out_dir} is the source folder: choose another output folder")
    if out_dir.exists() and not out_dir.is_dir():
        raise FileExistsError(f"{out_dir} exists and is not a folder: choose another output path")
    if out_dir.exists() and not force:
        raise FileExistsError(f"{out_dir} already exists: pass --force (force=True) to replace it")


def _write_side_files(source: Path, folder: Path, config: dict, quantization: Optional[dict]) -> None:
    config = dict(config)
    config.pop("quantization", None)
    if quantization:
        config["quantization"] = quantization
    (folder / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    for name in SIDE_FILES:
        if (source / name).exists():
            shutil.copy2(source / name, folder / name)
