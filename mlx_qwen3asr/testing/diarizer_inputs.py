"""Deterministic test inputs for the diarizer: the committed espeak-ng clips, re-voiced and mixed (numpy only).

    tests/fixtures/audio/{long,short,exact}.wav -> voice A (long, as is), B (short, resampled x1.35: slower
    and lower), C (exact, resampled x0.75: faster and higher) -> placed at fixed times and summed:
      one    A alone                                         15.7 s
      two    A and B, B overlapping A for 1.5 s               18.2 s
      three  A, B, C with two overlaps                       18.3 s
      noise  white noise at -30 dB                           12.0 s
      long   A, B, C taking turns, with overlaps and pauses  64.0 s
The golden script (in the reference environment) and the tests build the same samples: float64 linear
interpolation and float32 sums, exact on every CPU.
"""

import wave
from pathlib import Path

import numpy as np

from .signals import RATE, noise

VOICE_RATES = {"A": ("long", 1.0), "B": ("short", 1.35), "C": ("exact", 0.75)}
LAYOUTS = {  # name -> seconds, [(voice, start in the voice (s), end (s), where it starts in the mix (s))]
    "one": (15.7, [("A", 0.0, 15.7, 0.0)]),
    "two": (18.2, [("A", 0.0, 10.0, 0.0), ("B", 0.0, 3.5, 8.5), ("A", 10.0, 15.7, 12.5)]),
    "three": (18.3, [("A", 0.0, 8.0, 0.0), ("B", 0.0, 3.5, 6.5), ("C", 0.0, 2.25, 9.5), ("A", 8.0, 14.0, 11.5),
                     ("C", 0.0, 2.25, 16.0)]),
    "long": (64.0, [("A", 0.0, 9.0, 0.0), ("B", 0.0, 3.5, 8.0), ("C", 0.0, 2.25, 12.0), ("A", 9.0, 15.7, 15.0),
                    ("B", 0.0, 3.5, 22.5), ("C", 0.0, 2.25, 25.0), ("A", 0.0, 8.0, 28.5), ("C", 0.0, 2.25, 36.0),
                    ("B", 0.0, 3.5, 40.0), ("A", 8.0, 15.7, 44.0), ("B", 0.0, 3.5, 51.0), ("C", 0.0, 2.25, 54.0),
                    ("A", 0.0, 6.0, 57.5)]),
}  # fmt: skip
LEVEL = 0.5  # each voice at half its level: overlaps stay within [-1, 1] (exact in float32)
NAMES = ("one", "two", "three", "noise", "long")


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as f:
        assert f.getframerate() == RATE and f.getsampwidth() == 2 and f.getnchannels() == 1, path
        return np.frombuffer(f.readframes(f.getnframes()), "<i2").astype(np.float32) / np.float32(32768)


def voice(audio_dir: Path, name: str) -> np.ndarray:
    """Voice name: its clip resampled by its rate (>1: longer and lower)."""
    clip, rate = VOICE_RATES[name]
    samples = read_wav(Path(audio_dir) / f"{clip}.wav")
    if rate == 1.0:
        return samples
    positions = np.arange(int(len(samples) * rate)) / rate
    return np.interp(positions, np.arange(len(samples)), samples.astype(np.float64)).astype(np.float32)


def diarizer_input(audio_dir: Path, name: str) -> np.ndarray:
    """One named input as float32 samples at 16 kHz."""
    if name == "noise":
        return noise(12.0, -30.0, seed=7)
    seconds, parts = LAYOUTS[name]
    mix = np.zeros(int(seconds * RATE), np.float32)
    voices = {v: voice(audio_dir, v) for v in {p[0] for p in parts}}
    for v, start, end, at in parts:
        piece = voices[v][int(start * RATE) : int(end * RATE)]
        begin = int(at * RATE)
        piece = piece[: len(mix) - begin]
        mix[begin : begin + len(piece)] += piece * np.float32(LEVEL)
    return mix
