"""Fun-ASR-Nano fixtures: the tiny random "-hf" checkpoint the goldens were made from."""

from pathlib import Path

import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.random_funasr import tiny_funasr_config, write_random_funasr


@pytest.fixture(scope="session")
def funasr_dir(tmp_path_factory) -> Path:
    return write_random_funasr(tmp_path_factory.mktemp("funasr") / "tiny", tiny_funasr_config(), seed=0)


@pytest.fixture(scope="session")
def funasr(funasr_dir):
    return mq.load(funasr_dir, dtype="float32")
