"""Command line for the converter: `mlx-qwen3asr-convert --model M -o OUT [--bits 4|8] ...`.

    arguments -> Recipe -> convert() with rich progress bars (read / quantize / write, in bytes)
    -> summary: output size and ratio to the source, time, peak memory
    -> fidelity check: source (float32) vs converted on a built-in test signal (an aligner: in timestamps)

The library stays free of rich: it is imported here only. Exit status: 0 converted, 1 the
conversion failed (nothing written), 2 bad arguments, 130 interrupted (nothing written).
"""

import argparse
import resource
import sys
from typing import Optional

import mlx.core as mx

from ..loading.convert.align_fidelity import alignment_fidelity_lines, check_alignment_fidelity
from ..loading.convert.converter import MAX_SHARD_BYTES, convert
from ..loading.convert.fidelity import Fidelity, check_fidelity
from ..loading.convert.recipe import BITS, FLOAT, GROUP_SIZES, ConversionResult, Recipe
from ..loading.load import DEFAULT_MODEL, DTYPES, read_config, skeleton, slow_quantized_note
from ..runtime.blas import ensure_fast_blas
from ..runtime.lifecycle import releases_mlx_streams

STAGES = ("read", "quantize", "write")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mlx-qwen3asr-convert",
        description="Convert a Qwen3-ASR checkpoint into an MLX folder (default: 4-bit decoder, 8-bit encoder).",
    )
    parser.add_argument("--model", default=DEFAULT_MODEL, help=f"hub id or local folder (default {DEFAULT_MODEL})")
    parser.add_argument("-o", "--output", required=True, help="output folder (written atomically)")
    parser.add_argument("--bits", type=int, default=4, choices=BITS, help="decoder + tied embedding (16 = float)")
    parser.add_argument("--encoder-bits", type=int, default=8, choices=BITS, help="audio encoder (16 = float)")
    parser.add_argument("--group-size", type=int, default=64, choices=GROUP_SIZES, help="weights per scale/bias")
    parser.add_argument("--dtype", default="float16", choices=sorted(DTYPES), help="float tensors, scales and biases")
    parser.add_argument(
        "--allow-4bit-encoder", action="store_true", help="accept --encoder-bits 4 (may lose transcripts)"
    )
    parser.add_argument("--force", action="store_true", help="replace an existing output folder")
    parser.add_argument("--max-shard-bytes", type=int, default=MAX_SHARD_BYTES, help="start a new shard above this")
    parser.add_argument("--fidelity-tokens", type=int, default=24, help="greedy tokens to compare (0 = skip the check)")
    return parser


def describe(recipe: Recipe) -> str:
    name = lambda bits: "float" if bits == 16 else f"{bits}-bit"  # noqa: E731
    return (
        f"decoder + embedding {name(recipe.bits)}, encoder {name(recipe.encoder_bits)}, "
        f"group size {recipe.group_size}, {recipe.dtype}"
    )


def peak_rss_bytes() -> int:
    """The process's peak resident memory (ru_maxrss is in KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def run_conversion(args: argparse.Namespace, recipe: Recipe, console) -> ConversionResult:
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description:>8}"), BarColumn(), DownloadColumn(), TimeElapsedColumn())
    bars = Progress(*columns, console=console)
    tasks: dict = {}

    def progress(stage: str, nbytes: int, total: int) -> None:
        if not tasks:  # shown from the first tensor read on: argument and source errors come first
            bars.start()
            tasks.update({name: bars.add_task(name, total=None) for name in STAGES})
        bars.update(tasks[stage], advance=nbytes, total=total)

    try:
        return convert(
            args.model,
            args.output,
            recipe,
            force=args.force,
            allow_4bit_encoder=args.allow_4bit_encoder,
            max_shard_bytes=args.max_shard_bytes,
            progress=progress,
        )
    finally:
        bars.stop()


def run_fidelity(result: ConversionResult, n_tokens: int, console) -> Fidelity:
    """check_fidelity with one bar per model, in tokens (the source's greedy decode takes most of it)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bars = Progress(
        TextColumn("{task.description:>9} tokens"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    tasks = {name: bars.add_task(name, total=n_tokens) for name in ("source", "converted")}
    with bars:
        return check_fidelity(
            result.source,
            result.folder,
            n_tokens=n_tokens,
            progress=lambda name, done, total: bars.update(tasks[name], completed=done, total=total),
        )


def summary(result: ConversionResult, recipe: Recipe, rss: int) -> list[str]:
    mb = lambda n: f"{n / 1e6:,.1f} MB"  # noqa: E731
    return [
        f"converted  {result.folder}  ({describe(recipe)})",
        f"size       {mb(result.source_bytes)} -> {mb(result.output_bytes)}  "
        f"({result.output_bytes / result.source_bytes:.2f}x the source)",
        f"time       {result.seconds:.1f} s;  peak memory: MLX {mb(result.peak_memory_bytes)}, process RSS {mb(rss)}",
    ]


def fidelity_lines(fidelity: Fidelity) -> list[str]:
    n, agree = len(fidelity.reference_tokens), fidelity.agreeing_tokens
    where = (
        "none"
        if fidelity.first_divergence is None
        else (
            f"token {fidelity.first_divergence} (reference top-2 margin {fidelity.margin_at_divergence:.3f}, "
            f"median margin {float(sorted(fidelity.reference_margins)[len(fidelity.reference_margins) // 2]):.3f})"
        )
    )
    return [
        f"fidelity   greedy tokens: {agree}/{n} agree with the float source; first divergence: {where}",
        f"           logit cosine at the last prompt position {fidelity.logits_cosine:.5f}, "
        f"lowest along the source's tokens {fidelity.min_step_cosine:.5f}",
    ]


@releases_mlx_streams
def main(argv: Optional[list[str]] = None) -> int:
    if argv is None:  # the real command line (tests pass argv and keep their process)
        ensure_fast_blas()
    args = build_parser().parse_args(argv)
    from rich.console import Console
    from rich.markup import escape

    console, err = Console(), Console(stderr=True)
    recipe = Recipe(args.bits, args.encoder_bits, args.group_size, args.dtype)
    if recipe.encoder_bits == 4 and args.allow_4bit_encoder:
        err.print(
            "[yellow]warning:[/] a 4-bit audio encoder loses the most accuracy and has been seen to "
            "collapse transcripts to empty output; --encoder-bits 8 is the safe choice"
        )
    note = slow_quantized_note(recipe.bits != FLOAT or recipe.encoder_bits != FLOAT)
    if note:
        err.print(f"[yellow]{escape(note)}[/]", highlight=False, soft_wrap=True)
    try:
        result = run_conversion(args, recipe, err)
    except (FileNotFoundError, FileExistsError, ValueError, OSError, MemoryError) as e:
        err.print(f"[red]error:[/] {escape(str(e))}", highlight=False, soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        err.print("interrupted: nothing was written")
        return 130
    for line in summary(result, recipe, peak_rss_bytes()):
        console.print(line, highlight=False, soft_wrap=True)
    if args.fidelity_tokens > 0 and skeleton(read_config(result.folder)).task == "align":
        err.print(
            "fidelity check: float32 source vs converted, timestamps of a fixed text on a built-in 3 s test signal",
            highlight=False,
            soft_wrap=True,
        )
        for line in alignment_fidelity_lines(check_alignment_fidelity(result.source, result.folder)):
            console.print(line, highlight=False, soft_wrap=True)
    elif args.fidelity_tokens > 0:
        slow = " (minutes on the CPU backend; --fidelity-tokens 0 skips it)" if mx.default_device() == mx.cpu else ""
        err.print(
            f"fidelity check: float32 source vs converted, {args.fidelity_tokens} greedy tokens on a "
            f"built-in 3 s test signal{slow}",
            highlight=False,
            soft_wrap=True,
        )
        try:
            fidelity = run_fidelity(result, args.fidelity_tokens, err)
        except MemoryError as e:  # the float32 reference may not fit where the conversion did
            err.print(f"[yellow]fidelity check skipped:[/] {escape(str(e))}", highlight=False, soft_wrap=True)
            return 0
        for line in fidelity_lines(fidelity):
            console.print(line, highlight=False, soft_wrap=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
