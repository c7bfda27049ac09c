"""Parity with pyannote.audio 4.0.7 on the committed goldens (scripts/make_diarizer_goldens.py): the same
random-weight folder, the inputs of testing/diarizer_inputs.py, default parameters and num_speakers=2."""

import os

import numpy as np
import pytest
from diarizer_goldens import SHORT_INPUTS, TIE_MARGIN, audio, golden

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.pyannote import frames
from mlx_qwen3asr.families.pyannote.clustering import speaker_bounds
from mlx_qwen3asr.families.pyannote.pipeline import speaker_turns

SETTINGS = {"default": {}, "two": {"num_speakers": 2}}
SLOW = pytest.mark.skipif(
    not os.environ.get("MLX_QWEN3ASR_SLOW_TESTS"), reason="minutes of embeddings: set MLX_QWEN3ASR_SLOW_TESTS=1"
)


def golden_turns(name: str, setting: str) -> list[tuple[float, float, str]]:
    g = golden(name)
    return [(round(float(a), 3), round(float(b), 3), str(c))
            for a, b, c in zip(g[f"{setting}_starts"], g[f"{setting}_ends"], g[f"{setting}_labels"])]  # fmt: skip


def turns_ms(diarization) -> list[tuple[float, float, str]]:
    return [(round(t.start, 3), round(t.end, 3), t.speaker) for t in diarization.turns]


@pytest.mark.parametrize("name", SHORT_INPUTS)
def test_segmentation_is_pyannotes_except_at_float32_ties(name, stages):
    g = golden(name)
    segmentation, _ = stages(name)
    assert segmentation.shape == g["segmentation"].shape, "the same windows"
    differ = np.any(segmentation != g["segmentation"], axis=-1)
    ties = g["margin"].astype(np.float32) < TIE_MARGIN
    assert not np.any(differ & ~ties), f"frames with a clear winner differ: {np.argwhere(differ & ~ties)[:5]}"


@pytest.mark.parametrize("name", SHORT_INPUTS)
def test_speaker_count_is_pyannotes(name, stages):
    segmentation, _ = stages(name)
    g = golden(name)
    assert np.array_equal(frames.speaker_count(segmentation), g["count"])


@pytest.mark.parametrize("name", SHORT_INPUTS)
def test_embeddings_are_pyannotes_within_1e_3_relative(name, stages):
    segmentation, embeddings = stages(name)
    g = golden(name)
    n = len(embeddings)
    same = np.all(segmentation[:n] == g["segmentation"][:n], axis=(1, 2))  # chunks whose masks are the same
    assert same.all(), "no ties in these windows"
    reference = g["embeddings"][:n]
    error = np.linalg.norm(embeddings - reference, axis=-1) / np.linalg.norm(reference, axis=-1)
    assert error.max() < 1e-3, f"worst relative error {error.max():.2e}"


@pytest.mark.filterwarnings("ignore:found 1 speaker")  # noise with num_speakers=2: pyannote warns too
@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("name", (*SHORT_INPUTS, "long"))
def test_clustering_of_pyannotes_own_stages_gives_its_turns(name, setting, diarizer):
    g = golden(name)
    bounds = speaker_bounds(**SETTINGS[setting])
    ours = speaker_turns(g["segmentation"], g["embeddings"], diarizer.plda, diarizer.clustering, *bounds)
    assert turns_ms(ours) == golden_turns(name, setting)


def test_diarize_end_to_end_reporting_progress(diarizer):
    done: list[float] = []
    d = mq.diarize(audio("noise"), diarizer, num_speakers=2, on_progress=done.append)
    assert turns_ms(d) == golden_turns("noise", "two")
    assert done and sum(done) == pytest.approx(len(audio("noise")) / 16000), f"progress {done} must add up to the audio"


@SLOW
@pytest.mark.parametrize("name", ("one", "two", "three", "long"))
def test_diarize_end_to_end_on_speech(name, diarizer):
    for setting, kwargs in SETTINGS.items():
        assert turns_ms(mq.diarize(audio(name), diarizer, **kwargs)) == golden_turns(name, setting), setting


def test_too_few_speakers_for_the_bounds_warns_as_pyannote_does(diarizer):
    g = golden("noise")  # no embedding is kept: one cluster, though two were asked for
    with pytest.warns(UserWarning, match=r"found 1 speaker\(s\), outside \[2, 2\]"):
        speaker_turns(g["segmentation"], g["embeddings"], diarizer.plda, diarizer.clustering, *speaker_bounds(2))
