"""SenseVoiceSmall fixtures: the tiny random release folder the goldens were made from (written at test time,
no torch), loaded with its am.mvn and without it."""

import shutil
from pathlib import Path

import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.random_sensevoice import tiny_sensevoice_config, write_random_sensevoice


@pytest.fixture(scope="session")
def sensevoice_dir(tmp_path_factory) -> Path:
    return write_random_sensevoice(tmp_path_factory.mktemp("sensevoice") / "tiny", tiny_sensevoice_config(), seed=0)


@pytest.fixture(scope="session")
def sensevoice(sensevoice_dir):
    return mq.load(sensevoice_dir, dtype="float32")


@pytest.fixture(scope="session")
def sensevoice_without_cmvn(sensevoice_dir, tmp_path_factory):
    """The same release without am.mvn: funasr's front end then applies no CMVN."""
    folder = tmp_path_factory.mktemp("sensevoice-nocmvn") / "tiny"
    shutil.copytree(sensevoice_dir, folder)
    (folder / "am.mvn").unlink()
    return mq.load(folder, dtype="float32")


@pytest.fixture(scope="session")
def models(sensevoice, sensevoice_without_cmvn):
    return {True: sensevoice, False: sensevoice_without_cmvn}
