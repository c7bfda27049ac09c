"""The segmenting rule alone, on the reference's own probabilities: the segments must be exactly
get_speech_timestamps' (samples and seconds) for every clip and argument set."""

import pytest

from mlx_qwen3asr.vad import SpeechRule
from mlx_qwen3asr.vad.timestamps import speech_samples, to_seconds
from tests.vad_goldens import clip_names, goldens


@pytest.mark.parametrize("name", clip_names())
def test_segments_from_the_references_probabilities_are_the_references(name):
    clip = goldens()["clips"][name]
    for arguments, kwargs in goldens()["arguments"].items():
        samples = speech_samples(clip["probabilities"], clip["samples"], SpeechRule(**kwargs))
        expected = clip["segments"][arguments]
        assert [list(s) for s in samples] == expected["samples"], f"{name}, {arguments}"
        assert [list(s) for s in to_seconds(samples, clip["samples"])] == expected["seconds"], f"{name}, {arguments}"


def test_speech_to_the_end_of_the_clip_ends_at_its_exact_length_in_seconds():
    length = 41000  # 2.5625 s: the last segment's end is capped there, not rounded to 2.6
    probs = [0.0] * 40 + [0.9] * 41  # starts at window 40 - 30 ms pad = 1.25 s: Python's round gives 1.2
    assert to_seconds(speech_samples(probs, length), length) == [(1.2, 2.5625)]


def test_probabilities_between_the_two_thresholds_neither_open_nor_close_speech():
    quiet, between, loud = 0.1, 0.4, 0.9  # defaults: open at >= 0.5, close below 0.35
    assert speech_samples([quiet] * 10 + [between] * 20 + [quiet] * 10, 40 * 512) == []
    segments = speech_samples([quiet] * 10 + [loud] * 10 + [between] * 20 + [quiet] * 10, 50 * 512)
    assert segments == [(10 * 512 - 480, 40 * 512 + 480)], segments


def test_speech_shorter_than_min_speech_is_dropped():
    probs = [0.0] * 10 + [0.9] * 7 + [0.0] * 10  # 7 windows = 224 ms < 250 ms
    assert speech_samples(probs, 27 * 512) == []
    assert speech_samples(probs, 27 * 512, SpeechRule(min_speech_duration_ms=200)) == [(4640, 8704 + 480)]


def test_a_threshold_outside_zero_to_one_is_refused_with_its_value():
    with pytest.raises(ValueError, match="threshold must be in"):
        SpeechRule(threshold=1.5)
