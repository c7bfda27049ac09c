"""Streaming benchmark: per-step cost over a long session, and what each optimisation buys.

    python -m scripts.bench.streaming --quick                 # tiny random model, about a minute
    python -m scripts.bench.streaming                         # 0.6B-size random model, float32
    python -m scripts.bench.streaming --model DIR --audio speech.wav [--language English]
                                                              # real weights: + CER streamed vs offline

Audio is replayed in simulated real time: `chunk` seconds are fed per step and the decoder's compute
for that step is timed (a step slower than its chunk means the stream falls behind real time).
The speech is the espeak clips in tests/fixtures/audio, cycled with short gaps (0.3-1.2 s, under
the 2 s pause that closes a window) over a -65 dBFS noise floor, so windows grow to their 30 s cap.

Random weights never say end-of-text and loop at once, so the random-model runs cap every decoder
run at 12 new tokens (5 rolled back + ~3.5 tokens/s of speech over 2 s, a dictation pace) and
switch the loop guard off; with real weights (--model) neither is needed or done.

  1. side by side: the same speech through all-off, + encoder cache, + KV reuse, + draft (all on);
  2. a session of --minutes with everything on: step compute p50/p95 and peak MLX memory in the
     first and the last minute (their ratio must stay near 1).
"""

import argparse
import json
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

import mlx.core as mx
import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.prefix_cache import PrefixCache
from mlx_qwen3asr.options import DecodeOptions
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from mlx_qwen3asr.streaming import StreamingTranscriber, StreamingTuning
from mlx_qwen3asr.streaming.window_decoder import WindowDecoder
from scripts.bench.clips import fixture, fixture_names
from scripts.bench.common import CACHE_DIR, random_checkpoint
from scripts.bench.metrics import character_error_rate

RANDOM_TOKENS_PER_RUN = 12
CONFIGS = {
    "all off (official recipe)": dict(encoder_cache=False, kv_reuse=False, draft=False),
    "+ encoder cache": dict(encoder_cache=True, kv_reuse=False, draft=False),
    "+ KV reuse": dict(encoder_cache=True, kv_reuse=True, draft=False),
    "+ draft verification (all on)": dict(encoder_cache=True, kv_reuse=True, draft=True),
}


def speech(seconds: float, seed: int = 0) -> np.ndarray:
    """Fixture speech clips cycled with 0.3-1.2 s gaps over a -65 dBFS noise floor."""
    rng = np.random.default_rng(seed)
    clips = [fixture(name) for name in fixture_names()]
    pieces, total = [], 0
    while total < seconds * mq.SAMPLE_RATE:
        clip = clips[int(rng.integers(len(clips)))]
        gap = np.zeros(int(rng.uniform(0.3, 1.2) * mq.SAMPLE_RATE), np.float32)
        pieces += [clip, gap]
        total += len(clip) + len(gap)
    audio = np.concatenate(pieces)[: int(seconds * mq.SAMPLE_RATE)]
    return audio + (rng.standard_normal(len(audio)) * 10 ** (-65 / 20)).astype(np.float32)


@dataclass
class Counts:
    """What the decoder runs did, read through the transcriber's decoder (on_decoder)."""

    runs: int = 0
    draft_offered: int = 0
    draft_accepted: int = 0
    prefilled: int = 0


class CountingDecoder:
    def __init__(self, inner: WindowDecoder):
        self.inner, self.tokenizer, self.counts = inner, inner.tokenizer, Counts()

    def decode(self, audio, prefix, draft, max_new_tokens):
        result = self.inner.decode(audio, prefix, draft, max_new_tokens)
        self.counts.runs += 1
        self.counts.draft_offered += min(len(draft), max_new_tokens) if self.inner.draft else 0
        self.counts.draft_accepted += result.draft_accepted
        self.counts.prefilled += result.prefilled
        return result

    def reset(self) -> None:
        self.inner.reset()


@dataclass
class Run:
    step_seconds: list[float] = field(default_factory=list)  # compute of each step that ran the decoder
    step_ends: list[float] = field(default_factory=list)  # audio time at the end of that step
    marks: dict = field(default_factory=dict)  # minute -> (peak MLX bytes, RSS bytes)
    counts: Counts = field(default_factory=Counts)
    text: str = ""
    rebuilds: int = 0


def stream(model, audio: np.ndarray, switches: dict, args, minutes_to_mark=()) -> Run:
    """Feed `audio` chunk by chunk; time every step; note memory at the end of the marked minutes."""
    random = not args.model  # random weights never stop and loop at once: a cap, no loop stop
    options = DecodeOptions(args.language, max_new_tokens=RANDOM_TOKENS_PER_RUN if random else None)
    tuning = StreamingTuning(**switches, stop_loops=not random)
    inner = WindowDecoder(
        model, options, **switches, stop_loops=tuning.stop_loops, prefixes=PrefixCache.off(model)
    )  # the head prefilled with the first prompt, as the window engine did before PrefixCache
    decoder = CountingDecoder(inner)
    options.check(model)
    transcriber = StreamingTranscriber.on_decoder(decoder, options, tuning, chunk_seconds=args.chunk)
    chunk, run = int(args.chunk * mq.SAMPLE_RATE), Run(counts=decoder.counts)
    for start in range(0, len(audio), chunk):
        minute = start // (60 * mq.SAMPLE_RATE)
        if start % (60 * mq.SAMPLE_RATE) < chunk and minute + 1 in minutes_to_mark:
            mx.reset_peak_memory()
        update = transcriber.feed(audio[start : start + chunk])
        if update.steps:
            run.step_seconds.append(update.compute_seconds / update.steps)
            run.step_ends.append(update.audio_seconds)
        end_minute = (start + chunk) / (60 * mq.SAMPLE_RATE)
        if end_minute == int(end_minute) and int(end_minute) in minutes_to_mark:
            run.marks[int(end_minute)] = (mx.get_peak_memory(), rss_bytes())
    run.text = transcriber.finish().committed
    run.rebuilds = inner.encoder.rebuilds if inner.encoder else 0
    return run


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # macOS: bytes, a peak


def p(values, q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else float("nan")


def side_by_side(model, args) -> None:
    audio = speech(args.compare_seconds, seed=1)
    print(f"\n1. side by side: {args.compare_seconds:.0f} s of speech, {args.chunk:g} s steps")
    print(
        f"{'configuration':32} {'steps':>5} {'total s':>8} {'p50 s':>7} {'p95 s':>7} {'speed-up':>8}"
        f" {'prefilled/run':>13} {'draft ok':>8}"
    )
    baseline, texts = None, {}
    for name, switches in CONFIGS.items():
        run = stream(model, audio, switches, args)
        total = sum(run.step_seconds)
        baseline = baseline or total
        c = run.counts
        accepted = f"{c.draft_accepted}/{c.draft_offered}" if c.draft_offered else "-"
        print(
            f"{name:32} {len(run.step_seconds):5d} {total:8.2f} {p(run.step_seconds, 50):7.3f} "
            f"{p(run.step_seconds, 95):7.3f} {baseline / total:7.2f}x "
            f"{c.prefilled / max(c.runs, 1):13.0f} {accepted:>8}"
        )
        texts[name] = run.text
    same = len(set(texts.values())) == 1
    print(f"final text identical in all configurations: {same}")


def session(model, args) -> None:
    minutes = args.minutes
    audio = speech(minutes * 60, seed=2)
    print(f"\n2. session of {minutes} min, everything on")
    started = time.perf_counter()
    all_on = CONFIGS["+ draft verification (all on)"]
    run = stream(model, audio, all_on, args, minutes_to_mark=(1, minutes))
    ends = np.array(run.step_ends)
    steps = np.array(run.step_seconds)
    print(f"{'minute':>6} {'steps':>5} {'p50 s':>7} {'p95 s':>7} {'RTF p50':>7} {'peak MLX MB':>11} {'RSS MB':>7}")
    rows = {}
    for minute in (1, minutes):
        sel = steps[(ends > (minute - 1) * 60) & (ends <= minute * 60)]
        peak, rss = run.marks.get(minute, (float("nan"), float("nan")))
        rows[minute] = p(sel, 50)
        print(
            f"{minute:6d} {len(sel):5d} {p(sel, 50):7.3f} {p(sel, 95):7.3f} "
            f"{p(sel, 50) / args.chunk:7.2f} {peak / 2**20:11.0f} {rss / 2**20:7.0f}"
        )
    print(
        f"p50 ratio minute {minutes} / minute 1: {rows[minutes] / rows[1]:.2f}; "
        f"encoder windows rebuilt (clamp floor moved): {run.rebuilds}; "
        f"committed characters: {len(run.text)}; wall {time.perf_counter() - started:.0f} s"
    )


def cer(model, args) -> None:
    """Real weights: character error rate of the streamed text against offline transcription."""
    audio = mq.load_audio(args.audio)
    offline = mq.transcribe(audio, model, language=args.language).text
    transcriber = StreamingTranscriber(model, DecodeOptions(args.language), chunk_seconds=args.chunk)
    for start in range(0, len(audio), int(args.chunk * mq.SAMPLE_RATE)):
        transcriber.feed(audio[start : start + int(args.chunk * mq.SAMPLE_RATE)])
    streamed = transcriber.finish().committed
    print(json.dumps({"offline": offline, "streamed": streamed}, ensure_ascii=False, indent=1))
    print(f"CER streamed vs offline: {character_error_rate(offline, streamed):.4f}")


def load_model(args):
    folder = args.model or random_checkpoint(args.cache_dir, args.quick)
    return mq.load(folder, dtype=args.dtype)


def main() -> None:
    ensure_fast_blas()  # the BLAS scripts/env.sh preloads, also when run without it (re-executes once)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny random model, short runs")
    parser.add_argument("--model", help="a real checkpoint folder (adds the CER check with --audio)")
    parser.add_argument("--audio", help="speech file for the CER check (real weights only)")
    parser.add_argument("--language", default=None)
    parser.add_argument("--dtype", default="float32", help="float32 is the fast path on CPU")
    parser.add_argument("--chunk", type=float, default=2.0, help="seconds per step")
    parser.add_argument("--minutes", type=int, default=None, help="session length (default 30; quick 2)")
    parser.add_argument("--compare-seconds", type=float, default=None, help="default 40 (quick 20)")
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR, help="where the random checkpoints are kept")
    args = parser.parse_args()
    args.minutes = args.minutes or (2 if args.quick else 30)
    args.compare_seconds = args.compare_seconds or (20.0 if args.quick else 40.0)
    model = load_model(args)
    print(
        f"model: {args.model or ('tiny' if args.quick else '0.6B-size')} random={not args.model} "
        f"dtype={args.dtype} device={mx.default_device()}"
    )
    if args.model and args.audio:
        cer(model, args)
    side_by_side(model, args)
    session(model, args)


if __name__ == "__main__":
    main()
