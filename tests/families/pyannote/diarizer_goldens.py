"""The diarizer goldens and their inputs (tests/fixtures/diarizer, made by scripts/make_diarizer_goldens.py)."""

from functools import cache
from pathlib import Path

import numpy as np

from mlx_qwen3asr.testing.diarizer_inputs import diarizer_input

FIXTURES = Path(__file__).parents[2] / "fixtures"
GOLDENS = FIXTURES / "diarizer"
SHORT_INPUTS = ("one", "two", "three", "noise")  # the 64 s input runs in the slow lane
# Frames whose two best powerset log-probabilities (in pyannote's float32 run) are closer than this may
# take the other class in a correct float32 port: our log-probabilities differ from torch's by <= ~3e-7
# (measured), and float32 vs float64 of the same model by ~1e-3; 1e-4 leaves a margin of 300x above ours.
TIE_MARGIN = 1e-4


@cache
def golden(name: str) -> dict:
    with np.load(GOLDENS / f"{name}.npz") as data:
        out = dict(data)
    classes = out["classes"]
    bits = np.unpackbits(out["segmentation"])[: classes.size * 3]
    out["segmentation"] = bits.reshape(*classes.shape, 3).astype(np.float32)
    return out


@cache
def audio(name: str) -> np.ndarray:
    return diarizer_input(FIXTURES / "audio", name)
