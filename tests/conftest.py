"""Shared fixtures: tiny random-weight checkpoints in the official layout, made at test time."""

import os
from pathlib import Path

# Full float32 in matrix products before MLX's first operation: on CUDA (Ampere and newer) and on Apple's M5
# neural accelerators MLX runs float32 matmul and convolution at TF32 precision unless MLX_ENABLE_TF32=0, and
# the goldens are float32 (the aligner's logits missed their tolerance on an H100 without this). The CPU
# backend ignores it.
os.environ["MLX_ENABLE_TF32"] = "0"

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.random_checkpoint import tiny_config, write_listening_checkpoint, write_random_checkpoint
from mlx_qwen3asr.testing.random_sensevoice import tiny_sensevoice_config, write_random_sensevoice

FIXTURES = Path(__file__).parent / "fixtures"
GOLDENS = FIXTURES / "goldens"
AUDIO = FIXTURES / "audio"


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory) -> Path:
    """The checkpoint the golden fixtures were made from: official layout, bf16, seed 0."""
    return write_random_checkpoint(tmp_path_factory.mktemp("tiny") / "model", tiny_config(), seed=0)


@pytest.fixture(scope="session")
def tiny_model(tiny_checkpoint):
    return mq.load(tiny_checkpoint, dtype="float32")


@pytest.fixture(scope="session")
def sensevoice_dir(tmp_path_factory) -> Path:
    """A tiny random SenseVoiceSmall release folder (the one its goldens were made from), seed 0."""
    return write_random_sensevoice(tmp_path_factory.mktemp("sensevoice") / "tiny", tiny_sensevoice_config(), seed=0)


@pytest.fixture(scope="session")
def sensevoice(sensevoice_dir):
    return mq.load(sensevoice_dir, dtype="float32")


@pytest.fixture(scope="session")
def speech() -> np.ndarray:
    """~2.5 s of espeak-ng speech, 16 kHz float32."""
    return mq.load_audio(AUDIO / "short.wav")


@pytest.fixture(scope="session")
def tiny_aligner_dir(tmp_path_factory) -> Path:
    """The aligner the aligner goldens were made from: tiny, seed 0, listening gains (times follow the audio)."""
    from mlx_qwen3asr.testing.random_aligner import tiny_aligner_config, write_random_aligner

    folder = tmp_path_factory.mktemp("aligner") / "tiny"
    return write_random_aligner(folder, tiny_aligner_config(), seed=0, listening=True)


@pytest.fixture(scope="session")
def tiny_aligner(tiny_aligner_dir):
    return mq.load(tiny_aligner_dir, dtype="float32")


@pytest.fixture(scope="session")
def listening_checkpoint(tmp_path_factory) -> Path:
    """The tiny checkpoint whose text changes with the audio (random_checkpoint.write_listening_checkpoint)."""
    return write_listening_checkpoint(tmp_path_factory.mktemp("listening") / "model")


@pytest.fixture(scope="session")
def listening_model(listening_checkpoint):
    return mq.load(listening_checkpoint, dtype="float32")


@pytest.fixture(scope="session")
def diarizer_dir(tmp_path_factory) -> Path:
    """The diarizer the pyannote goldens were made from: random weights in the official layout, seed 0."""
    from mlx_qwen3asr.testing.random_diarizer import write_random_diarizer

    return write_random_diarizer(tmp_path_factory.mktemp("diarizer") / "community-1", seed=0)


@pytest.fixture(scope="session")
def diarizer(diarizer_dir):
    return mq.load(diarizer_dir)


@pytest.fixture
def stream_sides(monkeypatch):
    """spy(module) -> a list that gets, for each call of module.halves (two_streams.halves), whether it
    had a side stream to cut the work over."""
    from mlx_qwen3asr.runtime import two_streams

    sides: list[bool] = []

    def spy(module) -> list[bool]:
        def halves(work, side, axis=-1):
            sides.append(side is not None)
            return plain(work, side, axis)

        plain = two_streams.halves
        monkeypatch.setattr(module, "halves", halves)
        return sides

    return spy


@pytest.fixture
def option_checks(monkeypatch) -> list:
    """Every DecodeOptions.check call, as (options, model); the check itself still runs."""
    calls, check = [], mq.DecodeOptions.check

    def counted(self, model):
        calls.append((self, model))
        return check(self, model)

    monkeypatch.setattr(mq.DecodeOptions, "check", counted)
    return calls
