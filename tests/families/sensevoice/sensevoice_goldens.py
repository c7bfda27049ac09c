"""SenseVoiceSmall goldens (tests/fixtures/sensevoice, made by scripts/make_sensevoice_goldens.py from funasr 1.4.16)
and the clips that script fed funasr (the same recipe)."""

from pathlib import Path

import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.signals import joined, noise

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GOLDENS = FIXTURES / "sensevoice"
CLIPS = ("short", "long", "exact", "noise", "joined40")
LANGUAGES = {"auto": None, "en": "English", "zh": "Chinese", "ja": "Japanese"}


def clip(name: str) -> np.ndarray:
    if name == "noise":
        return noise(3.0, -30.0, seed=1)
    if name == "joined40":
        return joined([clip(n) for n in ("long", "short", "exact", "long", "short")], 40.0)
    return mq.load_audio(FIXTURES / "audio" / f"{name}.wav")


def golden(name: str, size: str = "tiny") -> dict:
    return dict(np.load(GOLDENS / f"{size}_{name}.npz"))


def variants(want: dict) -> list[str]:
    return [key.removesuffix("_ids") for key in want if key.endswith("_ids")]


def request(variant: str) -> tuple:
    """(language name or None, itn, cmvn) of a golden variant such as "en_itn" or "auto_noitn_nocmvn"."""
    parts = variant.split("_")
    return LANGUAGES[parts[0]], parts[1] == "itn", "nocmvn" not in parts
