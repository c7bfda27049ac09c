"""The audio the benchmarks feed, made the same way on every side of a comparison.

    clip(seconds)    deterministic noise (with random weights the content does not matter)
    fixture(name)    a committed espeak-ng clip, tests/fixtures/audio/NAME.wav, float32 16 kHz
    speech(seconds)  long.wav tiled to `seconds` (speech for the voice-activity rule and the aligner)

numpy and the standard library only: the official side's workers run in a torch environment without
MLX and import it too.
"""

import wave
from pathlib import Path

import numpy as np

SAMPLE_RATE = 16000  # mlx_qwen3asr.SAMPLE_RATE (not imported: the official side has no MLX)
FIXTURE_AUDIO = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "audio"


def clip(seconds: float) -> np.ndarray:
    """Deterministic noise at -20 dBFS, the same on every side and in every benchmark."""
    rng = np.random.default_rng(0)
    return (0.1 * rng.standard_normal(int(seconds * SAMPLE_RATE))).astype(np.float32)


def fixture(name: str) -> np.ndarray:
    """tests/fixtures/audio/<name>.wav (16 kHz mono PCM16, see its SOURCE.md) as float32 in [-1, 1)."""
    with wave.open(str(FIXTURE_AUDIO / f"{name}.wav")) as f:
        assert (f.getframerate(), f.getnchannels(), f.getsampwidth()) == (SAMPLE_RATE, 1, 2), f"{name}.wav"
        pcm = np.frombuffer(f.readframes(f.getnframes()), "<i2")
    return pcm.astype(np.float32) / 32768


def fixture_names() -> list[str]:
    return sorted(path.stem for path in FIXTURE_AUDIO.glob("*.wav"))


def speech(seconds: float) -> np.ndarray:
    """long.wav repeated until `seconds` long."""
    one = fixture("long")
    n = int(seconds * SAMPLE_RATE)
    return np.tile(one, -(-n // len(one)))[:n]
