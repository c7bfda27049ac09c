"""Transcript writers produce exactly the expected file contents."""

from mlx_qwen3asr.formats import FORMATS, format_json, format_srt, format_txt, format_vtt
from mlx_qwen3asr.result import Segment, Transcription

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
      "repetition_trimmed": false
    },
    {
      "start": 4.2,
      "end": 9.0,
      "text": "  ",
      "language": "",
      "finish_reason": "stop",
      "hit_token_budget": false,
      "repetition_trimmed": false
    },
    {
      "start": 3599.5,
      "end": 3725.013,
      "text": " Über eine Stunde\\n\\nspäter. ",
      "language": "German",
      "finish_reason": "repetition",
      "hit_token_budget": false,
      "repetition_trimmed": true
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
