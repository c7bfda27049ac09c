"""The Silero VAD goldens (tests/fixtures/silero_vad, made by scripts/make_vad_goldens.py with silero-vad
6.2.3's load_silero_vad(), the .jit): the clips as 16-bit WAV files, the reference's probabilities and
get_speech_timestamps segments in goldens.json."""

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

import mlx_qwen3asr as mq

FOLDER = Path(__file__).resolve().parent / "fixtures" / "silero_vad"


@lru_cache(maxsize=1)
def goldens() -> dict:
    return json.loads((FOLDER / "goldens.json").read_text())


def clip_names() -> list[str]:
    return list(goldens()["clips"])


def audio_of(name: str):
    """What the reference was given, as our API takes it: a WAV path, or the joined 16 kHz array of a
    clip made of others (the 60 s one)."""
    recipe = goldens()["recipe"].get(name)
    if recipe is None:
        return FOLDER / f"{name}.wav"
    return np.concatenate([mq.load_audio(FOLDER / f"{part}.wav") for part in recipe])


def wave_of(name: str) -> np.ndarray:
    audio = audio_of(name)
    return audio if isinstance(audio, np.ndarray) else mq.load_audio(audio)
