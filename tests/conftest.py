"""Shared fixtures: tiny random-weight checkpoints in the official layout, made at test time."""

from pathlib import Path

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.random_checkpoint import tiny_config, write_random_checkpoint

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
