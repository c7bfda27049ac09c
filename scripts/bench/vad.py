"""Silero VAD: ours (MLX) against the reference's onnxruntime model, interleaved, on this CPU.

    audio: tests/fixtures/silero_vad's 60 s clip (speech, noise, hum, clicks, tones), 16 kHz
    lanes, each side timed in turn, --rounds rounds (A B, then B A), medians:
      1 stream, whole clip  ours: vad.probabilities(wave)   ort: the reference's per-window loop
                            (OnnxWrapper's way: 64 context + 512 samples, state carried, one run per window)
      1 stream, live step   one 512-sample window per call, state carried (ours: VadStream.push)
      16 streams batched    16 streams, one window each per call ([16, 576] in, state [2, 16, 128])
      live end-pointer      ours: SpeechFrames.push of 30 ms blocks (LiveSession's VAD work per block)
    -> windows per second, real-time factor (compute / audio), microseconds per 32 ms window; then the
       process's CPU microseconds per window (all its threads: steadier than the wall clock when
       other jobs share the machine)

    python -m scripts.bench.vad --wheel silero_vad-6.2.3-py3-none-any.whl   # its silero_vad.onnx
    python -m scripts.bench.vad --onnx silero_vad.onnx
Dev-only: onnxruntime is no dependency; without it (or without the model file) the reference side is
skipped with one line and ours is still measured.
"""

import argparse
import os
import statistics
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Optional

import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.silero.model import CONTEXT, WINDOW
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from mlx_qwen3asr.vad.energy import FRAME
from scripts.bench.common import ROOT, machine

RATE = mq.SAMPLE_RATE
CLIPS = ROOT / "tests" / "fixtures" / "silero_vad"
LONG = ["speech_pauses", "white_noise", "speech_snr10", "hum", "clicks", "speech_snr0", "tones", "typing"]
STREAMS = 16
BLOCK = 480  # 30 ms: the app's block


def clip(seconds: Optional[float]) -> np.ndarray:
    wave = np.concatenate([mq.load_audio(CLIPS / f"{name}.wav") for name in LONG + ["pink_noise", "speech_pauses"]])
    return wave if seconds is None else wave[: int(seconds * RATE)]


class OnnxSide:
    """The reference's ONNX model through onnxruntime, driven as silero-vad's OnnxWrapper drives it."""

    def __init__(self, model: bytes) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = options.intra_op_num_threads = 1  # OnnxWrapper's setting
        self.session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self.rate = np.array(RATE, np.int64)

    def windows(self, wave: np.ndarray, batch: int = 1) -> np.ndarray:
        rows = np.tile(wave[None, : len(wave) // WINDOW * WINDOW], (batch, 1))
        state, context = np.zeros((2, batch, 128), np.float32), np.zeros((batch, CONTEXT), np.float32)
        out = []
        for i in range(0, rows.shape[1], WINDOW):
            x = np.concatenate([context, rows[:, i : i + WINDOW]], axis=1)
            p, state = self.session.run(None, {"input": x, "state": state, "sr": self.rate})
            context = x[:, -CONTEXT:]
            out.append(p[:, 0])
        return np.stack(out, axis=1)


def onnx_model(args: argparse.Namespace) -> Optional[bytes]:
    """The model bytes, or None after one line saying why the reference side is skipped."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        print("reference side skipped: onnxruntime is not installed (pip install onnxruntime, dev-only)")
        return None
    if args.onnx:
        return Path(args.onnx).read_bytes()
    if args.wheel:
        with zipfile.ZipFile(args.wheel) as wheel:
            return wheel.read("silero_vad/data/silero_vad.onnx")
    print("reference side skipped: give --wheel silero_vad-6.2.3-py3-none-any.whl or --onnx silero_vad.onnx")
    return None


def timed(run: Callable[[], object], windows: int) -> tuple[float, float, int]:
    """(wall seconds, process CPU seconds, windows) of one run."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu, windows


def ours_lanes(vad: mq.SileroVad, wave: np.ndarray) -> dict:
    """Lane -> (seconds, CPU seconds, windows) for one run of each of our lanes."""
    n = len(wave) // WINDOW
    stream, streams, frames = vad.stream(), vad.stream(STREAMS), vad.frame_judge(FRAME)
    rows = np.tile(wave[None], (STREAMS, 1))
    return {
        "1 stream, whole clip": timed(lambda: vad.probabilities(wave), n),
        "1 stream, live step": timed(lambda: [stream.push(wave[i * WINDOW : (i + 1) * WINDOW]) for i in range(n)], n),
        f"{STREAMS} streams batched": timed(
            lambda: [streams.push(rows[:, i * WINDOW : (i + 1) * WINDOW]) for i in range(n)], n * STREAMS
        ),
        "live end-pointer, 30 ms blocks": timed(
            lambda: [frames.push(wave[i : i + BLOCK]) for i in range(0, n * WINDOW, BLOCK)], n
        ),
    }


def onnx_lanes(side: OnnxSide, wave: np.ndarray) -> dict:
    n = len(wave) // WINDOW
    whole = timed(lambda: side.windows(wave), n)
    return {
        "1 stream, whole clip": whole,
        "1 stream, live step": whole,  # one window per run either way
        f"{STREAMS} streams batched": timed(lambda: side.windows(wave, STREAMS), n * STREAMS),
    }


def median_times(results: dict, lane: str) -> dict:
    """side -> (median wall seconds, median CPU seconds, windows) of `lane`, for the sides that ran it."""
    return {
        side: (
            statistics.median(r[lane][0] for r in runs),
            statistics.median(r[lane][1] for r in runs),
            runs[0][lane][2],
        )
        for side, runs in results.items()
        if lane in runs[0]
    }


def report(results: dict) -> None:
    lanes = list(results["ours"][0])
    print(f"{'lane':32s} {'side':5s} {'windows/s':>10s} {'RTF':>8s} {'us/window':>10s} {'ours/ort':>9s}")
    for lane in lanes:
        times = median_times(results, lane)
        ours_rate = times["ours"][2] / times["ours"][0]
        for side, (seconds, _, windows) in times.items():
            rate, audio = windows / seconds, windows * WINDOW / RATE
            speed = f"{ours_rate / rate:.2f}x" if side == "ort" else ""
            print(f"{lane:32s} {side:5s} {rate:10.0f} {seconds / audio:8.5f} {1e6 / rate:10.1f} {speed:>9s}")
    print("RTF: wall seconds per second of audio (per stream); ours/ort: windows per second, ours over ort")
    print(f"\n{'CPU microseconds per window':32s} {'ours':>10s} {'ort':>10s} {'ours/ort':>9s}")
    for lane in lanes:
        cpu = {side: 1e6 * t[1] / t[2] for side, t in median_times(results, lane).items()}
        ort = f"{cpu['ort']:10.1f} {cpu['ort'] / cpu['ours']:8.2f}x" if "ort" in cpu else ""
        print(f"{lane:32s} {cpu['ours']:10.1f} {ort}".rstrip())
    print("CPU: the process's time, all its threads (steadier than the wall clock when others share the machine)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wheel", help="silero_vad-6.2.3-py3-none-any.whl (its silero_vad.onnx is the reference)")
    parser.add_argument("--onnx", help="silero_vad.onnx itself")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=None, help="the first SECONDS of the 62 s clip only")
    args = parser.parse_args()
    ensure_fast_blas()
    wave = clip(args.seconds)
    vad = mq.load_vad()
    model = onnx_model(args)
    side = OnnxSide(model) if model is not None else None
    ours_lanes(vad, wave[: 4 * RATE])  # warm-up: compiled steps, allocations
    results: dict = {"ours": []} | ({"ort": []} if side else {})
    for r in range(args.rounds):
        order = ["ours", "ort"] if r % 2 == 0 else ["ort", "ours"]
        for name in order:
            if name == "ours":
                results["ours"].append(ours_lanes(vad, wave))
            elif side is not None:
                results["ort"].append(onnx_lanes(side, wave))
    print(f"{machine()}; load average {os.getloadavg()[0]:.2f} at the end; {len(wave) / RATE:.1f} s clip")
    report(results)


if __name__ == "__main__":
    main()
