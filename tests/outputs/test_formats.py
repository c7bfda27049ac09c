"""Transcript writers produce exactly the expected file contents."""

import json

import pytest

from mlx_qwen3asr.outputs.formats import (
    FORMATS,
    MAX_CUE_CHARS,
    MAX_CUE_SECONDS,
    format_json,
    format_srt,
    format_txt,
    format_vtt,
    join_words,
    render,
)
from mlx_qwen3asr.result import Segment, Transcription, Word

RESULT = Transcription(
    text="Hello there. Über eine Stunde später.",
    language="English,German",
    segments=[
        Segment(0.0, 4.2, "Hello there.", "English", token_ids=[1, 2]),
        Segment(4.2, 9.0, "  ", ""),
        Segment(
            3599.5,
            3725.0126,
            " Über eine Stunde\n\nspäter. ",
            "German",
            finish_reason="repetition",
        ),
    ],
)


def test_txt_is_the_text_and_a_newline():
    assert format_txt(RESULT) == "Hello there. Über eine Stunde später.\n"


def test_json_lists_every_segment_with_its_flags_and_keeps_non_ascii():
    expected = """{
  "text": "Hello there. Über eine Stunde später.",
  "language": "English,German",
  "segments": [
    {
      "start": 0.0,
      "end": 4.2,
      "text": "Hello there.",
      "language": "English",
      "finish_reason": "stop",
      "hit_token_budget": false,
      "repetition_trimmed": false,
      "context_echo": false
    },
    {
      "start": 4.2,
      "end": 9.0,
      "text": "  ",
      "language": "",
      "finish_reason": "stop",
      "hit_token_budget": false,
      "repetition_trimmed": false,
      "context_echo": false
    },
    {
      "start": 3599.5,
      "end": 3725.013,
      "text": " Über eine Stunde\\n\\nspäter. ",
      "language": "German",
      "finish_reason": "repetition",
      "hit_token_budget": false,
      "repetition_trimmed": true,
      "context_echo": false
    }
  ]
}
"""
    assert format_json(RESULT) == expected


def test_srt_numbers_cues_from_one_and_skips_empty_segments():
    expected = (
        "1\n00:00:00,000 --> 00:00:04,200\nHello there.\n"
        "\n"
        "2\n00:59:59,500 --> 01:02:05,013\nÜber eine Stunde\nspäter.\n"
    )
    assert format_srt(RESULT) == expected


def test_vtt_starts_with_its_header_and_uses_dots_before_milliseconds():
    expected = (
        "WEBVTT\n"
        "\n00:00:00.000 --> 00:00:04.200\nHello there.\n"
        "\n00:59:59.500 --> 01:02:05.013\nÜber eine Stunde\nspäter.\n"
    )
    assert format_vtt(RESULT) == expected


def test_hours_keep_counting_past_ninety_nine():
    long = Transcription("late", "English", [Segment(360_000.0, 360_001.25, "late", "English")])
    assert format_srt(long) == "1\n100:00:00,000 --> 100:00:01,250\nlate\n"


def test_a_transcription_without_text_gives_empty_subtitles():
    empty = Transcription("", "", [Segment(0.0, 1.0, "", "")])
    assert (format_srt(empty), format_vtt(empty), format_txt(empty)) == ("", "WEBVTT\n", "\n")


def test_formats_maps_each_extension_to_its_writer():
    assert FORMATS == {"txt": format_txt, "json": format_json, "srt": format_srt, "vtt": format_vtt}


def _aligned() -> Transcription:
    words = [
        Word("Hello", 0.5, 0.9),
        Word("world", 0.9, 1.4),
        Word("again", 3.0, 3.0),  # 1.6 s pause before
        Word("and", 3.1, 3.3),
        Word("again", 3.3, 3.8),
    ]
    chinese = [
        Word("你", 10.0, 10.2),
        Word("好", 10.2, 10.4),
        Word("GPT4", 10.4, 11.0),
        Word("and", 11.0, 11.2),
        Word("AI", 11.2, 11.5),
        Word("模", 11.5, 11.7),
    ]
    return Transcription(
        "Hello world. Again and again. 你好GPT-4 and AI模",
        "English,Chinese",
        [
            Segment(0.0, 5.0, "Hello world. Again and again.", "English", words=words),
            Segment(9.5, 12.0, "你好GPT-4 and AI模", "Chinese", words=chinese),
        ],
    )


def test_json_lists_each_segments_words_when_aligned():
    segments = json.loads(format_json(_aligned()))["segments"]
    assert segments[0]["words"][:2] == [
        {"text": "Hello", "start": 0.5, "end": 0.9},
        {"text": "world", "start": 0.9, "end": 1.4},
    ]
    assert "words" not in json.loads(format_json(RESULT))["segments"][0], "no aligner: no words key"


def test_aligned_subtitles_break_cues_at_long_pauses_and_join_chinese_without_spaces():
    assert format_srt(_aligned()) == (
        "1\n00:00:00,500 --> 00:00:01,400\nHello world\n\n"
        "2\n00:00:03,000 --> 00:00:03,800\nagain and again\n\n"
        "3\n00:00:10,000 --> 00:00:11,700\n你好GPT4 and AI模\n"
    )


def test_chinese_characters_inside_another_languages_cue_are_joined_without_spaces():
    words = [
        Word("I", 0.0, 0.2),
        Word("said", 0.2, 0.5),
        Word("你", 0.5, 0.7),
        Word("好", 0.7, 0.9),
        Word("twice", 1.0, 2.0),
    ]
    assert join_words(words, "English") == "I said 你好 twice"


def test_word_timestamps_give_one_cue_per_word_and_keep_zero_length_words():
    vtt = render(_aligned(), "vtt", timestamps="word")
    assert vtt.count(" --> ") == 11
    assert "\n00:00:03.000 --> 00:00:03.000\nagain\n" in vtt, "a zero-length word keeps its own cue"


def test_cues_stay_within_the_character_and_duration_limits():
    words = [Word(f"word{i:02d}", 0.4 * i, 0.4 * i + 0.3) for i in range(60)]
    result = Transcription("", "English", [Segment(0.0, 30.0, "many words", "English", words=words)])
    blocks = format_srt(result).strip().split("\n\n")
    for block in blocks:
        _, timing, text = block.split("\n")
        start, end = (_seconds(t) for t in timing.split(" --> "))
        assert len(text) <= MAX_CUE_CHARS and end - start <= MAX_CUE_SECONDS, block
    assert " ".join(b.split("\n")[2] for b in blocks) == " ".join(w.text for w in words), "every word, in order"


def test_word_timestamps_without_aligned_words_are_refused():
    with pytest.raises(ValueError, match="word timestamps need aligned words: transcribe with an aligner"):
        render(RESULT, "srt", timestamps="word")


def _seconds(stamp: str) -> float:
    hours, minutes, rest = stamp.split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(rest.replace(",", "."))
