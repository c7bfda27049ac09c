"""Speed benchmark: our pipeline against the machine's limit (the bare matrix products).

    python -m scripts.bench.overhead [--quick] [--long] [--dtypes float32,4bit] [--json bench.json]

    random-weight checkpoint with the real 0.6B config.json (built once in --cache-dir)
    -> per dtype (float32; on a GPU also float16 and the default 4-bit convert recipe):
       front end + encoder (10 s, 60 s; 10 and 20 min with --long), prefill of a 10 s clip's
       prompt, decode ms/token over a fixed count (EOS ignored), transcribe() of a 10 s clip
    -> the limit (bare_products.py): the same weights' bare matmuls in one graph (decode step,
       prefill, encoder with its conv stem as GEMMs); our time / that time = overhead factor
    (the official implementation, and our side under other BLAS libraries or at older commits, are
     compared in scripts/bench/vs_official.py: alternating runs, the load recorded)
    -> a rich table and a JSON file (--json)

Every time is the median of --runs runs after --warmup runs. On a shared machine only ratios
measured side by side in one run mean much. `--quick` uses the tiny test config and small sizes.
On Linux preload the BLAS that mlx_qwen3asr/runtime/blas.py chooses (scripts/env.sh does; by hand:
eval "$(.venv/bin/python mlx_qwen3asr/runtime/blas.py)"): the mlx[cpu] wheel links a reference BLAS that is
~60x slower.
"""

import argparse
import json
import platform
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Optional

import mlx.core as mx
from rich.table import Table

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.generate import generate_steps
from mlx_qwen3asr.families.recogniser import encode_audio
from mlx_qwen3asr.loading.convert import Recipe, convert
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from scripts.bench.bare_products import limits
from scripts.bench.clips import clip
from scripts.bench.common import CACHE_DIR, blas_libraries, console, machine, random_checkpoint

TARGETS = {"decode": 1.1, "prefill": 1.2, "encoder": 1.3}
QUANTIZED = {"4bit": 4, "8bit": 8}  # --dtypes names: the default convert recipe at these bits


def median_time(fn: Callable[[], object], runs: int, warmup: int) -> float:
    """Median wall time of fn() (its result evaluated) over runs, after warmup untimed calls."""
    for _ in range(warmup):
        mx.eval(fn())
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        mx.eval(fn())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def blas_note(libs: list[str]) -> Optional[str]:
    """A warning when MLX on Linux runs on the reference (netlib) BLAS."""
    if platform.system() != "Linux" or mx.default_device() != mx.cpu:
        return None
    if any(name in lib.lower() for lib in libs for name in ("openblas", "mkl", "blis")):
        return None
    return (
        "MLX is using the reference BLAS (~4 GFLOP/s): install libopenblas0-pthread and run with "
        "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libopenblas.so.0"
    )


def prompt_embeddings(model, seconds: float) -> mx.array:
    features = encode_audio(model, clip(seconds))
    prompt = model.prompt_ids(features.shape[0])
    embeddings = model.embed(mx.array(prompt), features)
    mx.eval(embeddings)
    return embeddings


def decode_seconds_per_token(model, embeddings: mx.array, n_tokens: int) -> float:
    """Time from the first token (prefill done) to the last of n_tokens more, per token."""
    steps = generate_steps(model, embeddings, model.make_cache(), n_tokens + 1)
    next(steps)
    start = time.perf_counter()
    for _ in steps:
        pass
    return (time.perf_counter() - start) / n_tokens


def bench_ours(model, args: argparse.Namespace) -> dict:
    """Encoder per length, prefill, decode, transcribe: our pipeline's times in seconds."""
    runs, warmup = args.runs, args.warmup
    out: dict = {"encoder": {}}
    for seconds in args.seconds:
        wave = clip(seconds)
        short = seconds <= 60  # the long ones run once, warmed up by the short ones
        out["encoder"][f"{seconds:g}"] = median_time(
            lambda wave=wave: encode_audio(model, wave), runs if short else 1, warmup if short else 0
        )
    embeddings = prompt_embeddings(model, args.prompt_seconds)
    out["prefill_tokens"] = int(embeddings.shape[1])
    out["prefill"] = median_time(lambda: model(embeddings, model.make_cache()), runs, warmup)
    decode = [decode_seconds_per_token(model, embeddings, args.decode_tokens) for _ in range(runs + warmup)]
    out["decode_ms_per_token"] = 1000 * statistics.median(decode[warmup:])
    wave = clip(args.prompt_seconds)
    out["transcribe"] = median_time(
        lambda: mq.transcribe(wave, model, max_new_tokens=args.decode_tokens) and mx.array(0), runs, warmup
    )
    return out


def memory_mb() -> dict:
    return {
        "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "mlx_peak_mb": mx.get_peak_memory() / 1e6,
    }


def quantized_checkpoint(folder: Path, bits: int, cache_dir: Path) -> Path:
    """The checkpoint converted with the default recipe at `bits` (built once in cache_dir)."""
    out = cache_dir / f"{folder.name}-{bits}bit"
    if not (out / "config.json").exists():
        console.print(f"converting {folder} to {bits}-bit: {out}")
        convert(folder, out, Recipe(bits=bits), force=True)
    return out


def bench_dtype(folder: Path, dtype: str, args: argparse.Namespace) -> dict:
    mx.reset_peak_memory()
    if dtype in QUANTIZED:
        model = mq.load(quantized_checkpoint(folder, QUANTIZED[dtype], args.cache_dir))
    else:
        model = mq.load(folder, dtype=dtype)
    ours = bench_ours(model, args)
    ours["limit"] = limits(model, args.prompt_seconds, ours["prefill_tokens"], args.runs, args.warmup)
    ours["overhead"] = {
        "decode": ours["decode_ms_per_token"] / ours["limit"]["decode_ms_per_token"],
        "prefill": ours["prefill"] / ours["limit"]["prefill"],
        "encoder": ours["encoder"][f"{args.prompt_seconds:g}"] / ours["limit"]["encoder"],
    }
    ours["encoder_per_audio_second"] = {k: v / float(k) for k, v in ours["encoder"].items()}
    ours["memory"] = memory_mb()
    return ours


def add_rows(table: Table, dtype: str, ours: dict) -> None:
    """One block of rows per dtype: time, the limit, overhead vs target."""
    limit, over = ours["limit"], ours["overhead"]
    base = min(ours["encoder_per_audio_second"].values())
    for key, secs in ours["encoder"].items():
        per_second = ours["encoder_per_audio_second"][key]
        is_prompt = key == next(iter(ours["encoder"]))
        table.add_row(
            dtype,
            f"front end + encoder {key} s",
            f"{secs * 1000:.0f} ms",
            f"{limit['encoder'] * 1000:.0f} ms" if is_prompt else f"{per_second / base:.2f}x per audio s",
            f"{over['encoder']:.2f}x (≤{TARGETS['encoder']})" if is_prompt else "",
        )
    table.add_row(
        dtype,
        f"prefill ({ours['prefill_tokens']} tokens)",
        f"{ours['prefill'] * 1000:.0f} ms",
        f"{limit['prefill'] * 1000:.0f} ms",
        f"{over['prefill']:.2f}x (≤{TARGETS['prefill']})",
    )
    table.add_row(
        dtype,
        "decode per token",
        f"{ours['decode_ms_per_token']:.1f} ms",
        f"{limit['decode_ms_per_token']:.1f} ms",
        f"{over['decode']:.2f}x (≤{TARGETS['decode']})",
    )
    table.add_row(dtype, "transcribe 10 s clip", f"{ours['transcribe'] * 1000:.0f} ms", "", "")
    mem = ours["memory"]
    table.add_row(dtype, "peak memory", f"RSS {mem['rss_peak_mb']:.0f} MB, MLX {mem['mlx_peak_mb']:.0f} MB", "", "")


def print_report(results: dict) -> None:
    table = Table(title=f"mlx-qwen3asr speed: {results['checkpoint_config']} config, random weights")
    for column in ("dtype", "stage", "ours", "the limit (bare matmuls)", "overhead (target)"):
        table.add_column(column)
    for dtype, ours in results["dtypes"].items():
        add_rows(table, dtype, ours)
    console.print(table)
    console.print(f"BLAS: {', '.join(results['blas']) or 'none found in /proc/self/maps'}")
    for note in results["notes"]:
        console.print(f"[yellow]note:[/yellow] {note}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny config and sizes: seconds, for CI")
    parser.add_argument("--long", action="store_true", help="also encode 10 and 20 minutes of audio (one run each)")
    parser.add_argument("--model", type=Path, help="checkpoint folder (default: random, in --cache-dir)")
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    parser.add_argument(
        "--dtypes",
        default=None,
        help="comma list of float32, float16, bfloat16, 4bit, 8bit (default: float32 on the CPU, "
        "float32,float16,4bit on a GPU)",
    )
    parser.add_argument("--runs", type=int, default=None, help="timed runs per measurement (default 5, quick 2)")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--decode-tokens", type=int, default=None, help="default 32, quick 8")
    parser.add_argument("--json", type=Path, default=Path("bench.json"))
    args = parser.parse_args()
    args.runs = args.runs or (2 if args.quick else 5)
    args.decode_tokens = args.decode_tokens or (8 if args.quick else 32)
    args.prompt_seconds = 10.0
    args.seconds = [10.0, 20.0] if args.quick else [10.0, 60.0] + ([600.0, 1200.0] if args.long else [])
    return args


def chosen_dtypes(args: argparse.Namespace, notes: list[str]) -> list[str]:
    if args.dtypes:
        return args.dtypes.split(",")
    if mx.default_device() == mx.cpu:
        notes.append(
            "float16 and 4-bit skipped: MLX's CPU backend has no optimised kernels for them "
            "(--dtypes float32,float16,4bit to force)"
        )
        return ["float32"]
    return ["float32", "float16", "4bit"]


def main() -> None:
    ensure_fast_blas()  # the BLAS scripts/env.sh preloads, also when run without it (re-executes once)
    args = parse_args()
    folder = args.model or random_checkpoint(args.cache_dir, args.quick)
    libs, notes = blas_libraries(), []
    if blas_note(libs):
        notes.append(blas_note(libs))
    if not args.long and not args.quick:
        notes.append("10 and 20 min encoder skipped (pass --long)")
    results = {
        "checkpoint": str(folder),
        "checkpoint_config": "tiny" if args.quick else "0.6B",
        "machine": machine(),
        "blas": libs,
        "notes": notes,
        "prompt_seconds": args.prompt_seconds,
        "runs": args.runs,
        "decode_tokens": args.decode_tokens,
        "dtypes": {dtype: bench_dtype(folder, dtype, args) for dtype in chosen_dtypes(args, notes)},
    }
    results["official"] = None  # see scripts/bench/vs_official.py
    args.json.write_text(json.dumps(results, indent=2))
    print_report(results)
    console.print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
