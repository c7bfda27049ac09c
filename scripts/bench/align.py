"""Word-alignment speed: ours against the official Qwen3ForcedAligner on 30 s of speech, same weights.

    python -m scripts.bench.align --official-python /tmp/refenv/bin/python [--runs 5] [--json out.json]
        (--quick: tiny config; after `source scripts/env.sh`: the fast BLAS preloaded)

    random-weight aligner (real Qwen3-ForcedAligner-0.6B config.json; --quick: tiny) in --cache-dir
    30 s of espeak speech (tests/fixtures/audio/long.wav, repeated) + a text of ~90 words
    -> ours, float32: mq.align() with 8 s encoder windows (our default) and with full attention (the
       official wrapper's attention on CPU)
    -> official, float32 (--official-python: a torch + qwen-asr environment): workers/official_align.py
       in a subprocess, one .align() per request
    -> runs alternate (ours windowed, ours full, official, ...) after one warm-up each, with the 1-minute
       load average recorded before every run; the table shows medians and ratios
    -> parity on this checkpoint: ours with full attention vs the official, classes and word times

Threads: torch and OpenBLAS (MLX's BLAS on Linux) both get --threads (default 2); OPENBLAS_NUM_THREADS
is read when the library loads, so the script re-executes itself with it set.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

import mlx.core as mx
import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.aligner.aligner import align_wave, timestamp_classes
from mlx_qwen3asr.families.aligner.units import split_units
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from scripts.bench.clips import speech
from scripts.bench.common import CACHE_DIR, ROOT, random_aligner

TEXT = (
    "Speech recognition turns spoken words into written text. This passage is long enough to cover more than "
    "one attention window of the audio encoder, so the model must process several windows of eight seconds "
    "each. The last chunk is partial, which tests the padding of the convolution stem. Word timestamps tell "
    "an editor, a subtitle file or a search index when each of these words was said, to the nearest eighty "
    "milliseconds, from one forward pass of the aligner over the audio and the known text."
)


class Official:
    """The official aligner in its own process, answering one timed .align() per request."""

    def __init__(self, python: str, folder: Path, wave: np.ndarray, threads: int):
        self.tmp = tempfile.TemporaryDirectory()
        audio, text = Path(self.tmp.name) / "audio.npy", Path(self.tmp.name) / "text.txt"
        np.save(audio, wave)
        text.write_text(TEXT, encoding="utf-8")
        command = [
            python,
            "-m",
            "scripts.bench.workers.official_align",
            str(folder),
            str(audio),
            str(text),
            "--threads",
            str(threads),
        ]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("the official aligner did not start: its stderr is above")

    def run(self) -> dict:
        self.process.stdin.write("run\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)
        self.tmp.cleanup()


def ours(aligner, wave: np.ndarray, full: bool) -> dict:
    start = time.perf_counter()
    words = align_wave(aligner, wave, TEXT, "English", full_attention=full)
    return {"seconds": time.perf_counter() - start, "words": [[w.text, w.start, w.end] for w in words]}


def alternate(lanes: dict, runs: int) -> tuple[dict, list[float]]:
    """One warm-up per lane, then `runs` rounds of one run per lane in turn; load average before each."""
    for run in lanes.values():
        run()
    times: dict = {name: [] for name in lanes}
    loads, last = [], {}
    for i in range(runs):
        for name, run in lanes.items():
            loads.append(os.getloadavg()[0])
            last[name] = run()
            times[name].append(last[name]["seconds"])
            print(
                f"run {i + 1}/{runs} {name}: {times[name][-1]:.3f} s (load {loads[-1]:.2f})",
                file=sys.stderr,
                flush=True,
            )
    return {"times": times, "last": last}, loads


def parity(aligner, wave: np.ndarray, official: dict) -> dict:
    classes = timestamp_classes(aligner, wave, split_units(TEXT, "English"), True)
    mine = align_wave(aligner, wave, TEXT, "English", full_attention=True)
    diffs = [abs(w.start - o[1]) + abs(w.end - o[2]) for w, o in zip(mine, official["words"])]
    return {
        "classes_agree": sum(a == b for a, b in zip(classes, official["classes"])),
        "classes": len(official["classes"]),
        "words_identical": sum(d == 0 for d in diffs),
        "words": len(official["words"]),
        "max_time_difference_s": max(diffs, default=0.0),
    }


def report(result: dict) -> None:
    medians = {name: statistics.median(times) for name, times in result["times"].items()}
    print(
        f"{result['config']} aligner, {result['audio_seconds']:g} s audio, {result['units']} words, float32, "
        f"{result['threads']} threads; load average {min(result['load']):.2f}-{max(result['load']):.2f} "
        f"on {os.cpu_count()} CPUs; medians of {result['runs']} alternating runs"
    )
    for name, seconds in medians.items():
        vs = f"  ({medians['official'] / seconds:.2f}x the official's speed)" if "official" in medians else ""
        print(f"  {name:<16} {seconds:8.3f} s{vs if name != 'official' else ''}")
    if result.get("parity"):
        p = result["parity"]
        print(
            f"  parity (ours full attention vs official): classes {p['classes_agree']}/{p['classes']}, "
            f"words identical {p['words_identical']}/{p['words']}, "
            f"max time difference {p['max_time_difference_s']:.3f} s"
        )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny config: seconds, for the tests")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=None, help="timed runs per lane (default 5, quick 1)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--official-python", default=None, help="python of a torch + qwen-asr environment")
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    args.runs = args.runs or (1 if args.quick else 5)
    return args


def main() -> None:
    ensure_fast_blas()  # the BLAS scripts/env.sh preloads, also when run without it (re-executes once)
    args = parse_args()
    if os.environ.get("OPENBLAS_NUM_THREADS") != str(args.threads):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": str(args.threads)}
        os.execve(sys.executable, [sys.executable, "-m", __spec__.name, *sys.argv[1:]], env)
    folder = random_aligner(args.cache_dir, args.quick)
    wave = speech(args.seconds)
    aligner = mq.load(folder, dtype="float32")
    lanes = {"ours windowed": lambda: ours(aligner, wave, False), "ours full": lambda: ours(aligner, wave, True)}
    official: Optional[Official] = None
    if args.official_python:
        official = Official(args.official_python, folder, wave, args.threads)
        lanes["official"] = official.run
    try:
        runs, load = alternate(lanes, args.runs)
    finally:
        if official:
            official.close()
    result = {
        "config": "tiny" if args.quick else "0.6B",
        "audio_seconds": args.seconds,
        "threads": args.threads,
        "units": len(split_units(TEXT)),
        "runs": args.runs,
        "times": runs["times"],
        "load": load,
        "mlx": mx.__version__,
    }
    if official:
        result["parity"] = parity(aligner, wave, runs["last"]["official"])
    report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
