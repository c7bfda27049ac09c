"""The diarizer the goldens were made from: random weights in the official layout, seed 0."""

from functools import cache
from pathlib import Path

import pytest
from diarizer_goldens import audio

import mlx_qwen3asr as mq
from mlx_qwen3asr.pyannote import frames
from mlx_qwen3asr.testing.random_diarizer import write_random_diarizer


@pytest.fixture(scope="session")
def diarizer_dir(tmp_path_factory) -> Path:
    return write_random_diarizer(tmp_path_factory.mktemp("diarizer") / "community-1", seed=0)


@pytest.fixture(scope="session")
def diarizer(diarizer_dir):
    return mq.load(diarizer_dir)


EMBEDDED_SECONDS = 12  # the default lane embeds the first 12 s: windows 0-2, the same as the whole input's


@pytest.fixture(scope="session")
def stages(diarizer):
    """name -> (our segmentation [C, 589, 3], our embeddings of windows 0-2), computed once per session."""

    @cache
    def run(name: str):
        segmentation = diarizer.segmentation(audio(name))
        head = audio(name)[: EMBEDDED_SECONDS * 16000]
        return segmentation, diarizer.embeddings(head, segmentation[: len(frames.window_starts(len(head)))])

    return run
