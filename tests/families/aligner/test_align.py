"""mq.align and transcribe(..., aligner=): defined results and one-line errors for odd input."""

import sys

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.aligner.aligner import align_segments
from mlx_qwen3asr.families.aligner.units import split_units
from mlx_qwen3asr.result import Segment, Word

TEXT = "Hello world, this is a short speech test."


def test_align_gives_one_word_per_unit_with_non_decreasing_times(tiny_aligner, speech):
    words = mq.align(speech, TEXT, tiny_aligner, "english")
    assert [w.text for w in words] == ["Hello", "world", "this", "is", "a", "short", "speech", "test"]
    times = [t for w in words for t in (w.start, w.end)]
    assert times == sorted(times), f"repaired times must not go back: {times}"
    assert all(isinstance(w, Word) for w in words)


def test_words_of_zero_length_are_kept(tiny_aligner, speech):
    words = mq.align(speech, TEXT, tiny_aligner, "English")
    assert any(w.start == w.end for w in words), "this clip and checkpoint give zero-length words (golden)"
    assert len(words) == len(split_units(TEXT)), "none is dropped"


@pytest.mark.parametrize("text", ["", "   ", "... !!! ,,,", "—", "😀 👍"])
def test_text_without_an_alignable_unit_gives_no_words(tiny_aligner, speech, text):
    assert mq.align(speech, text, tiny_aligner, "English") == []


def test_language_none_uses_the_whitespace_and_cjk_rules(tiny_aligner, speech):
    assert mq.align(speech, "你好 world", tiny_aligner) == mq.align(speech, "你好 world", tiny_aligner, "Chinese")


def test_a_language_the_aligner_does_not_know_is_refused_naming_the_ones_it_does(tiny_aligner, speech):
    with pytest.raises(ValueError, match="does not support language 'Arabic': use one of Chinese, Cantonese"):
        mq.align(speech, "مرحبا", tiny_aligner, "Arabic")


def test_audio_longer_than_the_class_grid_is_refused_with_the_limit(tiny_aligner):
    too_long = np.zeros(401 * 16000, dtype=np.float32)
    with pytest.raises(ValueError, match=r"401\.0 s is longer than the aligner's time grid \(400 s\)"):
        mq.align(too_long, "hello", tiny_aligner, "English")


def test_empty_audio_is_refused(tiny_aligner):
    with pytest.raises(ValueError, match="the audio is empty"):
        mq.align(np.zeros(0, dtype=np.float32), "hello", tiny_aligner)


def test_an_asr_model_passed_as_aligner_is_refused(tiny_model, speech):
    with pytest.raises(ValueError, match="^aligner is a speech recogniser .*, not a forced aligner"):
        mq.align(speech, "hello", tiny_model)
    with pytest.raises(ValueError, match="^aligner is a speech recogniser .*, not a forced aligner"):
        mq.transcribe(speech, tiny_model, aligner=tiny_model)


def test_full_attention_changes_nothing_below_8_seconds(tiny_aligner, speech):
    assert mq.align(speech, TEXT, tiny_aligner, full_attention=True) == mq.align(speech, TEXT, tiny_aligner)


def test_each_segment_is_aligned_on_its_own_audio_and_shifted_by_its_start(tiny_aligner, speech):
    wave = np.concatenate([speech, speech[::-1]])
    middle = len(speech) / 16000
    segments = [
        Segment(0.0, middle, "Hello world", "English"),
        Segment(middle, 2 * middle, "这是 test", "Chinese"),
        Segment(2 * middle, 2 * middle, "", ""),
    ]
    align_segments(segments, wave, tiny_aligner)
    first = mq.align(speech, "Hello world", tiny_aligner, "English")
    second = mq.align(speech[::-1].copy(), "这是 test", tiny_aligner, "Chinese")
    assert segments[0].words == first
    assert segments[1].words == [Word(w.text, round(w.start + middle, 3), round(w.end + middle, 3)) for w in second]
    assert segments[2].words == [], "a segment without text has no words"


def test_transcribe_with_an_aligner_gives_every_segment_its_units(tiny_model, tiny_aligner, speech):
    result = mq.transcribe(speech, tiny_model, aligner=tiny_aligner)
    assert sum(len(segment.words) for segment in result.segments) > 10, "the tiny model's text has many units"
    for segment in result.segments:
        assert [w.text for w in segment.words] == split_units(segment.text), segment
    assert mq.transcribe(speech, tiny_model).segments[0].words is None, "no aligner, no words"


def test_japanese_without_its_word_segmenter_names_the_extra_to_install(tiny_aligner, speech, monkeypatch):
    monkeypatch.setitem(sys.modules, "nagisa", None)  # as if nagisa were not installed
    with pytest.raises(ImportError, match=r"pip install 'mlx-qwen3asr\[ja\]'"):
        mq.align(speech, "東京都に住んでいます", tiny_aligner, "Japanese")


def test_batched_transcription_gives_each_input_the_words_it_gets_alone(tiny_model, tiny_aligner, speech):
    inputs = [speech, speech[::-1].copy()]
    batch = mq.transcribe_batch(
        inputs, tiny_model, options=mq.DecodeOptions(max_new_tokens=8), batch_size=2, aligner=tiny_aligner
    )
    for audio, result in zip(inputs, batch):
        alone = mq.transcribe(audio, tiny_model, max_new_tokens=8, aligner=tiny_aligner)
        assert [s.words for s in result.segments] == [s.words for s in alone.segments]
        assert sum(len(s.words) for s in result.segments) > 0, "8 tokens of the tiny model give some units"
