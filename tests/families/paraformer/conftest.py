"""Paraformer fixtures: the tiny random release folder the goldens were made from (written at test time, no torch)."""

from pathlib import Path

import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.random_paraformer import tiny_paraformer_config, write_random_paraformer


@pytest.fixture(scope="session")
def paraformer_dir(tmp_path_factory) -> Path:
    return write_random_paraformer(tmp_path_factory.mktemp("paraformer") / "tiny", tiny_paraformer_config(), seed=0)


@pytest.fixture(scope="session")
def paraformer(paraformer_dir):
    return mq.load(paraformer_dir, dtype="float32")
