"""What offline transcription decodes on audio without speech: the energy rule against Silero VAD.

    minutes of white noise, pink noise, hum, music-like tones and typing (tests/fixtures/silero_vad's
    clips, tiled), and speech with pauses as the control
    -> mq.transcribe(audio, model) and mq.transcribe(audio, model, vad=mq.load_vad())
    -> chunks decoded (segments the recogniser ran on), tokens decoded, wall seconds

A random-weight model's text is meaningless, so the counts are what matters: every token decoded on
audio without speech is a chance for a real model to invent text. Default: the tiny random model
(--quick's checkpoint of the other benchmarks); --model for a real one.

    python -m scripts.bench.vad_offline --minutes 2
"""

import argparse
import os
import time
from pathlib import Path

import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from scripts.bench.common import CACHE_DIR, ROOT, machine, random_checkpoint

CLIPS = ROOT / "tests" / "fixtures" / "silero_vad"
KINDS = ["white_noise", "pink_noise", "hum", "tones", "typing", "speech_pauses"]


def tiled(name: str, minutes: float) -> np.ndarray:
    clip = mq.load_audio(CLIPS / f"{name}.wav")
    n = int(minutes * 60 * mq.SAMPLE_RATE)
    return np.tile(clip, -(-n // len(clip)))[:n]


def decoded(audio: np.ndarray, model, vad) -> tuple[int, int, float]:
    start = time.perf_counter()
    result = mq.transcribe(audio, model, vad=vad)
    runs = [s for s in result.segments if s.token_ids]
    return len(runs), sum(len(s.token_ids) for s in runs), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=2.0, help="of each kind of audio")
    parser.add_argument("--model", default=None, help="model folder or hub id (default: the tiny random model)")
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    args = parser.parse_args()
    ensure_fast_blas()
    model = mq.load(args.model or random_checkpoint(args.cache_dir, quick=True), dtype="float32")
    vad = mq.load_vad()
    print(f"{machine()}; {args.minutes:g} min of each; model {args.model or 'tiny random'}")
    print(
        f"{'audio':14s} {'energy: chunks':>15s} {'tokens':>7s} {'s':>6s}   {'silero: chunks':>15s} {'tokens':>7s} {'s':>6s}"
    )
    for kind in KINDS:
        audio = tiled(kind, args.minutes)
        energy, silero = decoded(audio, model, None), decoded(audio, model, vad)
        print(
            f"{kind:14s} {energy[0]:15d} {energy[1]:7d} {energy[2]:6.1f}   {silero[0]:15d} {silero[1]:7d} {silero[2]:6.1f}"
        )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
