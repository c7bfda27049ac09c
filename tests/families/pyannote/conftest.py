"""The goldens' stages, computed once (the diarizer they were made from: tests/conftest.py's `diarizer`)."""

from functools import cache

import pytest
from diarizer_goldens import audio

from mlx_qwen3asr.families.pyannote import frames

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
