"""The clips the FunASR golden makers run (make_funasr_goldens.py, make_sensevoice_goldens.py): the espeak
speech of tests/fixtures/audio, 3 s of noise and a 40 s join (one pass of the whole), and which rows of a
long array a golden keeps."""

from pathlib import Path

import numpy as np

from mlx_qwen3asr.audio.io import load_audio
from mlx_qwen3asr.testing.signals import joined, noise

AUDIO_DIR = Path(__file__).resolve().parent.parent / "tests/fixtures/audio"
MAX_ROWS = 12  # feature / embedding rows stored per clip (evenly spaced, first and last included)


def clips() -> dict[str, np.ndarray]:
    speech = {name: load_audio(AUDIO_DIR / f"{name}.wav") for name in ("short", "long", "exact")}
    return {
        **speech,
        "noise": noise(3.0, -30.0, seed=1),
        "joined40": joined([speech["long"], speech["short"], speech["exact"], speech["long"], speech["short"]], 40.0),
    }


def rows(n: int) -> np.ndarray:
    return np.unique(np.linspace(0, n - 1, min(n, MAX_ROWS)).round().astype(np.int32))
