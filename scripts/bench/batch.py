"""Batched transcription benchmark: batch 1 against batch 4, 8, 16 on the same audio, interleaved.

    python -m scripts.bench.batch [--quick] [--long] [--batch-sizes 1,4,8,16] [--json out.json]

    random-weight checkpoint with the real 0.6B config.json (common.py's, built once in --cache-dir)
    -> a clip of --minutes of noise, split into chunks of at most 30 s as transcribe() splits it
    -> rounds of max(batch sizes) chunks; in each round every batch size decodes the same chunks,
       one after another (so a change in the machine's load hits all batch sizes alike):
       encoder (one pass per batch) -> prompts -> decode_steps (prefill = until the first tokens,
       decode = the rest), each chunk capped at 3 tokens per second of audio + 6 (random weights
       never stop on their own; real speech runs ~3 tokens/s)
    -> per batch size: audio seconds per compute second, tokens per second end to end and in the
       decode phase, each against batch 1, the stage times, peak MLX memory; identical tokens checked

The stages are the library's own public functions in transcribe_chunks' order, timed one by one.
`--quick`: the tiny test config, 40 s of audio in 8 s chunks, batch 1, 2, 4 (seconds; tests run it).
On Linux run it after `source scripts/env.sh` (the fast BLAS preloaded).
"""

import argparse
import json
import os
import time
from pathlib import Path

import mlx.core as mx
import numpy as np
from rich.table import Table

import mlx_qwen3asr as mq
from mlx_qwen3asr.audio.split import split_audio
from mlx_qwen3asr.decode.generate import StopRules, decode_steps
from mlx_qwen3asr.families.recogniser import encode_audios
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from scripts.bench.clips import clip
from scripts.bench.common import CACHE_DIR, blas_libraries, console, machine, random_checkpoint

HEADER_TOKENS = 6  # "language English<asr_text>" and the end-of-text


def token_cap(seconds: float) -> int:
    return int(3 * seconds) + HEADER_TOKENS


def run_batch(model, chunks: list[np.ndarray], batch_size: int) -> dict:
    """Decode `chunks` batch_size at a time; stage times, tokens and peak memory."""
    out = {"encoder": 0.0, "prefill": 0.0, "decode": 0.0, "tokens": [], "decode_tokens": 0}
    mx.reset_peak_memory()
    for first in range(0, len(chunks), batch_size):
        waves = chunks[first : first + batch_size]
        start = time.perf_counter()
        features = encode_audios(model, waves)
        mx.eval(features)
        out["encoder"] += time.perf_counter() - start
        start = time.perf_counter()
        prompts = [model.embed(mx.array(model.prompt_ids(f.shape[0])), f) for f in features]
        rules = [StopRules(model.tokenizer.eos_token_ids, token_cap(len(w) / mq.SAMPLE_RATE)) for w in waves]
        steps = decode_steps(model, prompts, [model.make_cache() for _ in waves], rules)
        next(steps)  # the first tokens come with the prefill
        middle = time.perf_counter()
        out["decode_tokens"] += sum(len(tokens) for tokens in steps)
        out["prefill"] += middle - start
        out["decode"] += time.perf_counter() - middle
        out["tokens"] += [r.result.token_ids for r in rules]
        mx.clear_cache()
    out["peak_mb"] = mx.get_peak_memory() / 1e6
    return out


def merge(total: dict, part: dict) -> None:
    for key in ("encoder", "prefill", "decode", "decode_tokens"):
        total[key] = total.get(key, 0) + part[key]
    total["tokens"] = total.get("tokens", []) + part["tokens"]
    total["peak_mb"] = max(total.get("peak_mb", 0.0), part["peak_mb"])


def summarise(results: dict, audio_seconds: float) -> dict:
    for r in results.values():
        r["total"] = r["encoder"] + r["prefill"] + r["decode"]
        r["audio_per_compute"] = audio_seconds / r["total"]
        r["tokens_per_s"] = sum(map(len, r["tokens"])) / r["total"]
        r["decode_tokens_per_s"] = r["decode_tokens"] / r["decode"] if r["decode"] else 0.0
    return results


def print_table(results: dict, args, weights_mb: float) -> None:
    table = Table(
        title=f"batched transcription, {args.config} config, {args.minutes:g} min clip in chunks of at most "
        f"{args.chunk_seconds:g} s, random weights"
    )
    columns = (
        "batch",
        "audio s / compute s",
        "vs b1",
        "tokens/s",
        "decode-phase tokens/s",
        "vs b1",
        "encoder s",
        "prefill s",
        "decode s",
        "peak MLX MB (weights excl.)",
    )
    for column in columns:
        table.add_column(column)
    base = results[min(results)]
    for b, r in results.items():
        table.add_row(
            str(b),
            f"{r['audio_per_compute']:.3f}",
            f"{r['audio_per_compute'] / base['audio_per_compute']:.2f}x",
            f"{r['tokens_per_s']:.1f}",
            f"{r['decode_tokens_per_s']:.1f}",
            f"{r['decode_tokens_per_s'] / base['decode_tokens_per_s']:.2f}x",
            f"{r['encoder']:.1f}",
            f"{r['prefill']:.1f}",
            f"{r['decode']:.1f}",
            f"{r['peak_mb']:.0f} ({r['peak_mb'] - weights_mb:.0f})",
        )
    console.print(table)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny config, 40 s in 8 s chunks: seconds, for tests")
    parser.add_argument("--long", action="store_true", help="a 60-minute clip instead of 10 minutes")
    parser.add_argument("--minutes", type=float, default=None, help="clip length (default 10, --long 60)")
    parser.add_argument(
        "--chunk-seconds",
        type=float,
        default=None,
        help="split the clip into chunks of at most this (default 30, quick 8; shorter = a quicker run)",
    )
    parser.add_argument("--batch-sizes", default=None, help="comma list (default 1,4,8,16; quick 1,2,4)")
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    args.minutes = args.minutes or (40 / 60 if args.quick else 60.0 if args.long else 10.0)
    args.chunk_seconds = args.chunk_seconds or (8.0 if args.quick else 30.0)
    args.batch_sizes = [int(b) for b in (args.batch_sizes or ("1,2,4" if args.quick else "1,4,8,16")).split(",")]
    args.config = "tiny" if args.quick else "0.6B"
    return args


def main() -> None:
    ensure_fast_blas()  # the BLAS scripts/env.sh preloads, also when run without it (re-executes once)
    args = parse_args()
    load_start = os.getloadavg()
    model = mq.load(random_checkpoint(args.cache_dir, args.quick), dtype="float32")
    weights_mb = mx.get_active_memory() / 1e6
    chunks = [chunk for _, chunk in split_audio(clip(60 * args.minutes), args.chunk_seconds)]
    run_batch(model, chunks[:1], 1)  # warm up
    audio_seconds = sum(map(len, chunks)) / mq.SAMPLE_RATE
    round_size, results = max(args.batch_sizes), {b: {} for b in args.batch_sizes}
    for first in range(0, len(chunks), round_size):
        for b in args.batch_sizes:
            merge(results[b], run_batch(model, chunks[first : first + round_size], b))
        console.print(f"round {first // round_size + 1}/{-(-len(chunks) // round_size)} done", style="dim")
    summarise(results, audio_seconds)
    reference = results[min(results)]["tokens"]
    same = {b: r["tokens"] == reference for b, r in results.items()}
    console.print(
        f"{machine()}, "
        f"BLAS {', '.join(blas_libraries()) or '?'}; {len(chunks)} chunks, {audio_seconds:.0f} s of audio; "
        f"load average at start {load_start[0]:.2f}, at end {os.getloadavg()[0]:.2f}"
    )
    print_table(results, args, weights_mb)
    for b, ok in same.items():
        console.print(
            f"batch {b}: tokens and text {'identical to' if ok else 'DIFFERENT from'} batch {min(results)} "
            f"({sum(map(len, results[b]['tokens']))} tokens)"
        )
    if args.json:
        for r in results.values():
            r["tokens"] = sum(map(len, r["tokens"]))
        args.json.write_text(
            json.dumps({"results": results, "identical": same, "load": [load_start, os.getloadavg()]}, indent=2)
        )
    if not all(same.values()):
        raise SystemExit("batched tokens differ from batch 1")


if __name__ == "__main__":
    main()
