"""Paraformer goldens (tests/fixtures/paraformer, made by scripts/make_paraformer_goldens.py from funasr 1.4.16)
and the clips that script fed funasr (the same recipe; the tail clip is the long clip cut where the golden says)."""

from pathlib import Path

import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.signals import joined, noise

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GOLDENS = FIXTURES / "paraformer"
CLIPS = ("short", "long", "exact", "noise", "joined40", "tail")
REAL_CLIPS = ("short", "exact", "noise", "joined40", "tail")  # the real-size goldens (--real)


def golden(name: str, size: str = "tiny") -> dict:
    return dict(np.load(GOLDENS / f"{size}_{name}.npz"))


def clip(name: str, size: str = "tiny") -> np.ndarray:
    if name == "noise":
        return noise(3.0, -30.0, seed=1)
    if name == "joined40":
        return joined([clip(n) for n in ("long", "short", "exact", "long", "short")], 40.0)
    if name == "tail":
        return clip("long")[: int(golden("tail", size)["samples"])]
    return mq.load_audio(FIXTURES / "audio" / f"{name}.wav")
