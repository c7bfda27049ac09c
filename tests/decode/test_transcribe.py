"""Offline transcription: input handling, long-audio splitting and how chunk results are combined."""

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.audio.split import split_audio
from mlx_qwen3asr.decode.transcribe import join_texts, merge_languages
from mlx_qwen3asr.result import Segment

RATE = 16000


def _noise(seconds: float, seed: int = 0, level: float = 0.1) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(int(seconds * RATE)) * level).astype(np.float32)


@pytest.mark.parametrize("wave", [np.zeros(0, np.float32), _noise(0.09), np.zeros(3 * RATE, np.float32)])
def test_empty_too_short_or_silent_audio_gives_empty_text_without_decoding(tiny_model, wave):
    result = mq.transcribe(wave, tiny_model)
    assert result.text == "" and result.language == "", f"expected nothing, got {result.text!r}"
    assert result.token_ids == [[]], "the decoder must not run"


@pytest.mark.parametrize(
    "wave",
    [
        np.random.default_rng(0).integers(-1, 2, 3 * RATE).astype(np.float32) / 32768,  # -90 dBFS dither
        np.pad(np.full(160, 0.8, np.float32), (RATE, 2 * RATE)),  # one 10 ms click in 3 s of silence
    ],
    ids=["one-bit-dither", "a-click"],
)
def test_near_silence_is_not_decoded_by_the_voice_activity_rule(tiny_model, wave):
    result = mq.transcribe(wave, tiny_model)
    assert result.token_ids == [[]] and result.text == "", "no speech onset: the decoder must not run"


def test_a_nan_sample_is_rejected_with_its_position(tiny_model):
    wave = _noise(1.0)
    wave[4000] = np.nan
    with pytest.raises(ValueError, match="index 4000"):
        mq.transcribe(wave, tiny_model)


def test_int16_and_resampled_inputs_are_normalised_before_decoding(tiny_model):
    wave = _noise(1.5, level=0.2)
    as_int16 = np.round(wave * 32768).astype(np.int16)
    expected = mq.transcribe(as_int16.astype(np.float32) / 32768, tiny_model, max_new_tokens=4).token_ids
    assert mq.transcribe(as_int16, tiny_model, max_new_tokens=4).token_ids == expected
    stereo = np.stack([as_int16, as_int16], axis=1)
    assert mq.transcribe(stereo, tiny_model, max_new_tokens=4).token_ids == expected, "stereo must downmix"


def test_an_unknown_language_lists_the_supported_ones(tiny_model):
    with pytest.raises(ValueError, match="Klingon.*English"):
        mq.transcribe(_noise(1.0), tiny_model, language="Klingon")


def test_a_forced_language_is_reported_for_every_segment(tiny_model):
    result = mq.transcribe(_noise(1.0), tiny_model, language="german", max_new_tokens=3)
    assert result.language == "German" and result.segments[0].language == "German"


def _speech_with_pauses(seconds: float, pauses: list[float]) -> np.ndarray:
    wave = _noise(seconds, level=0.3)
    for pause in pauses:
        wave[int(pause * RATE) : int((pause + 0.3) * RATE)] *= 0.001
    return wave


def test_long_audio_is_cut_in_the_pause_before_each_30_second_limit():
    wave = _speech_with_pauses(75, pauses=[27.0, 54.0])
    chunks = split_audio(wave)
    starts = [start / RATE for start, _ in chunks]
    assert len(chunks) == 3, f"expected 3 chunks, got starts {starts}"
    assert 27.0 < starts[1] < 27.3 and 54.0 < starts[2] < 54.3, f"cuts missed the pauses: {starts}"
    assert all(len(c) <= 30 * RATE for _, c in chunks), "no chunk may exceed 30 s"
    np.testing.assert_array_equal(np.concatenate([c for _, c in chunks]), wave, "chunks must cover the audio")


def test_audio_without_pauses_is_still_cut_at_the_limit_or_before():
    chunks = split_audio(_noise(61, level=0.3))
    assert [len(c) <= 30 * RATE for _, c in chunks] == [True] * 3
    assert sum(len(c) for _, c in chunks) == 61 * RATE


def test_a_quiet_start_never_makes_a_run_of_tiny_chunks_when_the_limit_is_short():
    wave = _noise(20, level=0.3)
    wave[: 2 * RATE] *= 0.001  # the quietest stretch sits at the very start of the first search range
    chunks = split_audio(wave, max_seconds=3.0)
    lengths = [len(c) / RATE for _, c in chunks]
    assert all(1.5 <= n <= 3.0 for n in lengths[:-1]), f"each cut in a chunk's second half: {lengths}"
    np.testing.assert_array_equal(np.concatenate([c for _, c in chunks]), wave, "chunks must cover the audio")


@pytest.mark.parametrize("chunk_seconds", [0, 0.5, -30, float("nan"), float("inf"), True, "30"])
def test_a_chunk_length_that_cannot_work_is_refused_before_any_decoding(tiny_model, chunk_seconds):
    with pytest.raises(ValueError, match=r"chunk_seconds must be a number of seconds, 1 or more, got "):
        mq.transcribe(_noise(5, level=0.3), tiny_model, chunk_seconds=chunk_seconds)


def test_short_chunks_transcribe_a_clip_with_a_silent_start(tiny_model):
    wave = _noise(9, level=0.3)
    wave[: 3 * RATE] = 0.0
    result = mq.transcribe(wave, tiny_model, max_new_tokens=1, chunk_seconds=2)
    times = [(s.start, s.end) for s in result.segments]
    assert 5 <= len(times) <= 9 and times[0][0] == 0.0 and times[-1][1] == 9.0, times


def test_long_audio_gives_one_timed_segment_per_chunk(tiny_model):
    wave = _speech_with_pauses(65, pauses=[27.0, 54.0])
    result = mq.transcribe(wave, tiny_model, max_new_tokens=2)
    times = [(round(s.start, 1), round(s.end, 1)) for s in result.segments]
    assert len(times) == 3 and times[0][0] == 0.0 and times[-1][1] == 65.0, f"segment times {times}"
    assert all(a[1] == b[0] for a, b in zip(times, times[1:])), f"segments must be contiguous: {times}"
    assert [len(ids) for ids in result.token_ids] == [2, 2, 2] and result.hit_token_budget


def test_chunk_texts_join_with_spaces_except_next_to_scripts_written_without_them():
    segments = [Segment(0, 1, "Hello there.", "English"), Segment(1, 2, "", ""), Segment(2, 3, "Bye.", "English")]
    assert join_texts(segments) == "Hello there. Bye."
    chinese = [Segment(0, 1, "你好。", "Chinese"), Segment(1, 2, "再见。", "Chinese")]
    assert join_texts(chinese) == "你好。再见。"
    # Fun-ASR-Nano reports no language; a forced one says nothing of the script either: the text does
    unreported = [Segment(0, 1, "今日は", ""), Segment(1, 2, "いい天気", ""), Segment(2, 3, "สวัสดี", "English")]
    assert join_texts(unreported) == "今日はいい天気สวัสดี"
    assert merge_languages(segments + chinese) == "English,Chinese"


def test_a_bare_array_at_another_rate_is_resampled_when_its_rate_is_given(tiny_model, speech):
    at_48k = mq.audio.resample(speech, 16000, 48000)
    expected = mq.transcribe((at_48k, 48000), tiny_model, max_new_tokens=4)
    got = mq.transcribe(at_48k, tiny_model, max_new_tokens=4, sample_rate=48000)
    assert got.token_ids == expected.token_ids and got.segments[0].end == expected.segments[0].end


def test_sample_rate_is_refused_for_a_file_which_carries_its_own(tiny_model):
    with pytest.raises(ValueError, match="bare arrays"):
        mq.transcribe("speech.wav", tiny_model, sample_rate=48000)


def test_no_context_is_the_same_as_an_empty_context(tiny_model, speech):
    none = mq.transcribe(speech, tiny_model, context=None, max_new_tokens=4)
    assert none.token_ids == mq.transcribe(speech, tiny_model, context="", max_new_tokens=4).token_ids


def test_decode_options_are_checked_once_and_cannot_be_mixed_with_loose_arguments(tiny_model, speech):
    options = mq.DecodeOptions(language="english", max_new_tokens=4)
    assert options.language == "English"
    with pytest.raises(ValueError, match="either options= or"):
        mq.transcribe(speech, tiny_model, language="German", options=options)
    with pytest.raises(TypeError, match="context must be text"):
        mq.DecodeOptions(context=3)
