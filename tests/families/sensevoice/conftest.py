"""SenseVoiceSmall fixtures: the tiny random release folder the goldens were made from (tests/conftest.py's
sensevoice_dir, written at test time, no torch), loaded with its am.mvn (sensevoice) and without it."""

import shutil

import pytest

import mlx_qwen3asr as mq


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
