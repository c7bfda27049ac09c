"""Before/after of each speed change, side by side in one process (overhead.py gives the totals).

    for each change: the stages it touches, timed with the change off and on in alternating runs
    on the same random-weight checkpoint (real 0.6B config; --quick: the tiny test config)
    -> a table of medians and the speed-up, and whether the output stayed the same

A change is switched off by swapping the module-level function it replaced back in, so "off" is
exactly the code as it was before the change.

    python -m scripts.bench.changes [--quick] [--long]    (after `source scripts/env.sh`: the fast BLAS)
"""

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
from rich.table import Table

import mlx_qwen3asr as mq
from mlx_qwen3asr.audio.features import log_mel_spectrogram
from mlx_qwen3asr.families.qwen3_asr import encoder
from mlx_qwen3asr.layers import decoder
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from scripts.bench.clips import clip
from scripts.bench.common import CACHE_DIR, console, random_checkpoint


@dataclass
class Change:
    name: str
    switch: Callable[[bool], None]  # switch(True) = the change on


def fused_activations(on: bool) -> None:
    encoder.gelu = encoder_gelu if on else nn.gelu
    decoder.swiglu = decoder_swiglu if on else (lambda gate, up: nn.silu(gate) * up)


def stem_batches(on: bool) -> None:
    encoder.STEM_BATCH_CHUNKS = stem_batch_chunks if on else 1 << 30


def cpu_attention(on: bool) -> None:
    fused = lambda q, k, v, scale, mask=None: mx.fast.scaled_dot_product_attention(  # noqa: E731
        q, k, v, scale=scale, mask=mask
    )
    encoder.attention = decoder.attention = attention if on else fused


encoder_gelu, decoder_swiglu, attention = encoder.gelu, decoder.swiglu, decoder.attention
stem_batch_chunks = encoder.STEM_BATCH_CHUNKS
CHANGES = [
    Change("fused GELU / SwiGLU kernels (activations.py)", fused_activations),
    Change(f"conv stem in batches of {stem_batch_chunks} chunks", stem_batches),
    Change("attention with a fused-kernel softmax on the CPU (attention.py)", cpu_attention),
]


def stages(model, seconds: list[float], prefill_tokens: int) -> dict[str, Callable[[], mx.array]]:
    """Each stage as a function returning what it computes."""
    out = {}
    for s in seconds:
        mel = log_mel_spectrogram(clip(s))
        out[f"encoder {s:g} s"] = lambda mel=mel: model.encode(mel)
    embeddings = 0.02 * mx.random.normal((1, prefill_tokens, model.args.text.hidden_size), key=mx.random.key(0))
    out[f"prefill {prefill_tokens} tokens"] = lambda: model(embeddings, model.make_cache())
    return out


def timed(fn: Callable[[], mx.array]) -> tuple[float, int, mx.array]:
    """Seconds, MLX peak bytes, result."""
    mx.clear_cache()
    mx.reset_peak_memory()
    start = time.perf_counter()
    result = fn()
    mx.eval(result)
    return time.perf_counter() - start, mx.get_peak_memory(), result


def compare(change: Change, stage_fns: dict, runs: int) -> list[tuple]:
    rows = []
    for stage, fn in stage_fns.items():
        times, peaks, outputs = {False: [], True: []}, {}, {}
        for run in range(runs + 1):  # run 0 of each side is warm-up
            for on in (False, True):
                change.switch(on)
                seconds, peaks[on], outputs[on] = timed(fn)
                if run:
                    times[on].append(seconds)
        change.switch(True)
        before, after = statistics.median(times[False]), statistics.median(times[True])
        diff = float(mx.abs(outputs[False] - outputs[True]).max())
        rows.append((change.name, stage, before, after, peaks[False], peaks[True], diff))
    return rows


def main() -> None:
    ensure_fast_blas()  # the BLAS scripts/env.sh preloads, also when run without it (re-executes once)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny config: seconds, for CI")
    parser.add_argument("--model", type=Path, help="checkpoint folder (default: random, in --cache-dir)")
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--long", action="store_true", help="also encode 10 minutes of audio")
    args = parser.parse_args()
    model = mq.load(args.model or random_checkpoint(args.cache_dir, args.quick), dtype="float32")
    stage_fns = stages(model, [10.0, 60.0] + ([600.0] if args.long else []), 145)
    table = Table(title="before / after, float32, alternating runs (medians)")
    for column in ("change", "stage", "before", "after", "speed-up", "MLX peak before / after", "max |after - before|"):
        table.add_column(column)
    for change in CHANGES:
        for name, stage, before, after, peak_before, peak_after, diff in compare(change, stage_fns, args.runs):
            table.add_row(
                name,
                stage,
                f"{before * 1000:.0f} ms",
                f"{after * 1000:.0f} ms",
                f"{before / after:.2f}x",
                f"{peak_before / 1e6:.0f} / {peak_after / 1e6:.0f} MB",
                f"{diff:.1e}",
            )
    console.print(table)


if __name__ == "__main__":
    main()
