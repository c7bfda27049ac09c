"""The official implementation's golden outputs (tests/fixtures/goldens, made by scripts/make_goldens.py):
which clips and prompt variants they cover, and how to read one."""

from pathlib import Path

import numpy as np

AUDIO = Path(__file__).parent / "fixtures" / "audio"
GOLDENS = Path(__file__).parent / "fixtures" / "goldens"
CLIPS = ("short", "exact", "long")
VARIANTS = {  # name -> transcribe()'s context and language
    "plain": dict(context="", language=None),
    "context": dict(context="Names: Qwen, MLX, Zürich.", language=None),
    "language": dict(context="", language="English"),
    "both": dict(context="Names: Qwen, MLX, Zürich.", language="English"),
}


def load_golden(clip: str) -> dict:
    return dict(np.load(GOLDENS / f"tiny_{clip}.npz"))
