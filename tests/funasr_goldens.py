"""Fun-ASR-Nano goldens (tests/fixtures/funasr) and the clips scripts/make_funasr_goldens.py fed the official code."""

import json
from pathlib import Path

import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.signals import joined, noise

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GOLDENS = FIXTURES / "funasr"
VARIANTS = json.loads((GOLDENS / "variants.json").read_text())


def clip(name: str) -> np.ndarray:
    """The waveforms scripts/make_funasr_goldens.py fed the official code (same recipe)."""
    if name == "noise":
        return noise(3.0, -30.0, seed=1)
    if name == "joined40":
        parts = [clip(n) for n in ("long", "short", "exact", "long", "short")]
        return joined(parts, 40.0)
    return mq.load_audio(FIXTURES / "audio" / f"{name}.wav")


def load_funasr_golden(name: str, size: str = "tiny") -> dict:
    return dict(np.load(GOLDENS / f"{size}_{name}.npz"))
