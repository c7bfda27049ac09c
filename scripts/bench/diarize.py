"""Speaker diarization, our MLX pipeline against pyannote.audio 4.0.7 on CPU torch: speed and peak memory.

    python -m scripts.bench.diarize [--reference-python /path/to/venv/bin/python] \\
        [--seconds 120] [--rounds 2] [--memory-seconds 600,3600] [--busy] [--threads 2] [--sides ours,pyannote]
    (without --reference-python only our side runs, and one line says why pyannote's is skipped)

    the same random-weight folder in the official layout (testing/random_diarizer.py, seed 0) for both sides
    + speech: testing/diarizer_inputs.py's 64 s three-voice mix, tiled to the length asked, as a WAV file
    -> speed: one long-lived worker per side (scripts/bench/workers/diarize_{ours,official}.py, loaded and
       warmed once), --rounds alternating requests (ours, pyannote, ours, ...), the median of each side:
       seconds per hour of audio, the real-time factor, and pyannote's time over ours
    -> memory (--memory-seconds): for each length a FRESH worker per side, one request, its peak RSS (so the
       peak belongs to that length alone), beside the RSS once loaded
    the machine's load (LoadProbe) around every request; --busy adds machine_load.BackgroundLoad

pyannote.audio runs only in its own environment (../shared/DIARIZATION-REFERENCE.md for the set-up),
as a child process; torch never enters this process.
"""

import argparse
import os
import statistics
import sys
import tempfile
import wave
from pathlib import Path

import numpy as np

from mlx_qwen3asr.runtime.blas import THREAD_VARIABLES
from mlx_qwen3asr.testing.diarizer_inputs import diarizer_input
from mlx_qwen3asr.testing.random_diarizer import write_random_diarizer
from scripts.bench.common import CACHE_DIR, ROOT, machine
from scripts.bench.machine_load import BackgroundLoad, LoadProbe
from scripts.bench.workers.protocol import Worker

RATE = 16000
SPEECH = "long"  # the 64 s mix of three voices with overlaps and pauses


def speech_wav(seconds: float, folder: Path) -> Path:
    """The three-voice mix tiled to `seconds`, as 16-bit PCM (both sides read the same samples)."""
    clip = diarizer_input(ROOT / "tests" / "fixtures" / "audio", SPEECH)
    n = int(seconds * RATE)
    samples = np.tile(clip, -(-n // len(clip)))[:n]
    path = folder / f"speech-{seconds:g}s.wav"
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1), f.setsampwidth(2), f.setframerate(RATE)
        f.writeframes(np.round(np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def start(side: str, folder: Path, args: argparse.Namespace) -> Worker:
    threads = {name: str(args.threads) for name in THREAD_VARIABLES}
    if side == "ours":
        env = {**os.environ, **threads}
        return Worker("ours", [sys.executable, "-m", "scripts.bench.workers.diarize_ours", str(folder)], env, ROOT)
    env = {**{k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "PYTHONPATH")}, **threads}
    command = [args.reference_python, "-m", "scripts.bench.workers.diarize_official", str(folder)]
    return Worker("pyannote", command + ["--threads", str(args.threads)], env, ROOT)


def timed(worker: Worker, path: Path) -> dict:
    probe = LoadProbe()
    probe.start()
    reply = worker.measure({"stage": "diarize", "path": str(path)})
    return {**reply, **probe.stop(reply["cpu_seconds"])}


def speed(folder: Path, path: Path, seconds: float, args: argparse.Namespace) -> None:
    workers = {side: start(side, folder, args) for side in sides(args)}
    print("loaded: " + "\n        ".join(str(worker.ready) for worker in workers.values()), flush=True)
    runs: dict[str, list[dict]] = {side: [] for side in workers}
    try:
        for round_index in range(args.rounds):
            for side, worker in workers.items():
                reply = timed(worker, path)
                runs[side].append(reply)
                print(f"  round {round_index + 1} {side:9s} {reply['seconds']:8.1f} s  {reply['speakers']} speakers "
                      f"{reply['turns']} turns  load1 {reply['load1']:.1f}, others busy {reply['others']:.0%}", flush=True)  # fmt: skip
    finally:
        for worker in workers.values():
            worker.close()
    median = {side: statistics.median(r["seconds"] for r in replies) for side, replies in runs.items()}
    print(f"\n{seconds:g} s of speech, median of {args.rounds}:")
    print(f"{'side':10s} {'s/hour of audio':>16s} {'RTF':>7s} {'peak RSS MB':>12s}")
    for side, value in median.items():
        peak = max(r["rss_peak_mb"] for r in runs[side])
        print(f"{side:10s} {value / seconds * 3600:16.0f} {value / seconds:7.3f} {peak:12.0f}")
    if "pyannote" in median:
        print(f"ours is {median['pyannote'] / median['ours']:.2f}x pyannote.audio's speed (target >= 1.5x)")


def sides(args: argparse.Namespace) -> tuple[str, ...]:
    wanted = ("ours", "pyannote") if args.reference_python else ("ours",)
    return tuple(side for side in wanted if side in args.sides.split(","))


def memory(folder: Path, lengths: list[float], tmp: Path, args: argparse.Namespace) -> None:
    print(f"\n{'audio':>8s} {'side':10s} {'RSS loaded MB':>14s} {'peak RSS MB':>12s} {'seconds':>8s}")
    for seconds in lengths:
        path = speech_wav(seconds, tmp)
        for side in sides(args):
            worker = start(side, folder, args)
            try:
                reply = timed(worker, path)
            finally:
                worker.close()
            print(f"{seconds:7g}s {side:10s} {worker.ready['rss_mb']:14.0f} {reply['rss_peak_mb']:12.0f} "
                  f"{reply['seconds']:8.1f}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference-python", default=None, help="a python with torch and pyannote.audio 4.0.7")
    parser.add_argument("--seconds", type=float, default=120.0, help="speech for the speed rounds")
    parser.add_argument("--rounds", type=int, default=2, help="requests per side, alternating")
    parser.add_argument("--memory-seconds", default="", help="comma-separated lengths for peak RSS, e.g. 600,3600")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="BLAS / torch threads per side")
    parser.add_argument("--busy", action="store_true", help="with machine_load.BackgroundLoad (2 workers, 75%%)")
    parser.add_argument("--sides", default="ours,pyannote", help="which sides run (pyannote needs --reference-python)")
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    args = parser.parse_args()
    folder = args.cache_dir / "diarizer-random-seed0"
    if not (folder / "config.yaml").exists():
        write_random_diarizer(folder, seed=0)
    print(f"{machine()}; load1 {os.getloadavg()[0]:.1f}; {args.threads} threads per side; busy {args.busy}")
    if not args.reference_python:
        print("reference side skipped: give --reference-python (a python with torch and pyannote.audio 4.0.7)")
    lengths = [float(s) for s in args.memory_seconds.split(",") if s.strip()]
    with tempfile.TemporaryDirectory(prefix="bench-diarize-") as tmp, BackgroundLoad(2 if args.busy else 0, 0.75):
        if args.seconds > 0:
            speed(folder, speech_wav(args.seconds, Path(tmp)), args.seconds, args)
        memory(folder, lengths, Path(tmp), args)


if __name__ == "__main__":
    main()
