"""Subtitle layout (outputs/subtitles.py): line width, line count, words per line and highlighted words, as
openai-whisper's command line has them, plus cues cut where the speaker changes (pure functions, table-driven)."""

import subprocess
import sys
from pathlib import Path

import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.outputs.formats import render
from mlx_qwen3asr.outputs.subtitles import Cue, SubtitleLayout


def segment(*words: tuple, speaker=None, language="English") -> mq.Segment:
    timed = [mq.Word(text, start, end, speaker=speaker) for text, start, end in words]
    text = " ".join(w.text for w in timed)
    return mq.Segment(timed[0].start, timed[-1].end, text, language=language, words=timed, speaker=speaker)


FIRST = (("one", 0.0, 0.4), ("two", 0.5, 0.9), ("three", 1.0, 1.5), ("four", 1.6, 2.0))
NEAR = mq.Transcription("", "English", [segment(*FIRST), segment(("five", 2.5, 2.9), ("six", 3.0, 3.4))])
FAR = mq.Transcription("", "English", [segment(*FIRST), segment(("five", 6.0, 6.5), ("six", 6.6, 7.0))])
TWO_SPEAKERS = mq.Transcription(
    "",
    "English",
    [segment(*FIRST, speaker="SPEAKER_00"), segment(("five", 2.5, 2.9), ("six", 3.0, 3.4), speaker="SPEAKER_01")],
)


@pytest.mark.parametrize(
    ("result", "layout", "expected", "why"),
    [
        (NEAR, SubtitleLayout(), [(0.0, 2.0, "one two three four"), (2.5, 3.4, "five six")], "one cue per segment"),
        (
            NEAR,
            SubtitleLayout(max_line_width=9),
            [(0.0, 2.0, "one two\nthree\nfour"), (2.5, 3.4, "five six")],
            "lines wrap at 9 characters (the space counts); without a line count cues keep to segments",
        ),
        (
            NEAR,
            SubtitleLayout(max_line_width=9, max_line_count=2),
            [(0.0, 1.5, "one two\nthree"), (1.6, 3.4, "four five\nsix")],
            "with both limits cues run across segments: 'four five' is one line",
        ),
        (
            FAR,
            SubtitleLayout(max_line_width=9, max_line_count=2),
            [(0.0, 1.5, "one two\nthree"), (1.6, 2.0, "four"), (6.0, 7.0, "five six")],
            "4.4 s between the starts of 'four' and 'five' (over 3 s) ends the cue",
        ),
        (
            NEAR,
            SubtitleLayout(max_words_per_line=3),
            [(0.0, 1.5, "one two three"), (1.6, 2.0, "four"), (2.5, 3.4, "five six")],
            "every 3 words of a segment make a cue",
        ),
        (
            TWO_SPEAKERS,
            SubtitleLayout(max_line_width=20, max_line_count=2),
            [(0.0, 2.0, "one two three four"), (2.5, 3.4, "five six")],
            "a new speaker starts a new cue, though the lines have room",
        ),
    ],
)
def test_words_are_laid_out_in_cues(result, layout, expected, why):
    assert [(c.start, c.end, c.text) for c in layout.cues(result)] == expected, why


def test_highlighted_words_show_the_cue_once_per_word_and_plainly_in_the_gaps():
    result = mq.Transcription("", "English", [segment(("one", 0.0, 0.4), ("two", 0.5, 0.9), ("three", 0.9, 1.2))])
    assert SubtitleLayout(max_line_width=7, highlight_words=True).cues(result) == [
        Cue(0.0, 0.4, "<u>one</u> two\nthree"),
        Cue(0.4, 0.5, "one two\nthree"),  # the gap between 'one' and 'two'
        Cue(0.5, 0.9, "one <u>two</u>\nthree"),
        Cue(0.9, 1.2, "one two\n<u>three</u>"),  # no gap: 'three' starts where 'two' ends
    ]


def test_chinese_words_are_joined_without_spaces_and_measured_so():
    result = mq.Transcription("", "Chinese", [segment(("你好", 0.0, 0.5), ("世界", 0.5, 1.0), language="Chinese")])
    assert [c.text for c in SubtitleLayout(max_line_width=4).cues(result)] == ["你好世界"]
    assert [c.text for c in SubtitleLayout(max_line_width=3).cues(result)] == ["你好\n世界"]
    assert SubtitleLayout(highlight_words=True).cues(result)[1].text == "你好<u>世界</u>"


def test_a_segment_with_no_alignable_word_keeps_its_own_cue_and_the_speaker_shows_in_subtitles():
    silent = mq.Segment(3.5, 4.0, "...", language="English", words=[], speaker="SPEAKER_01")
    result = mq.Transcription("", "English", [*TWO_SPEAKERS.segments[:1], silent])
    layout = SubtitleLayout(max_line_width=9)
    assert layout.cues(result)[1] == Cue(3.5, 4.0, "...", "SPEAKER_01")
    srt = render(result, "srt", layout=layout)
    assert srt.startswith("1\n00:00:00,000 --> 00:00:02,000\n[SPEAKER_00] one two\nthree\nfour\n\n2\n"), srt


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_line_count": 2}, "--max-line-count needs --max-line-width"),
        ({"max_line_width": 30, "max_words_per_line": 3}, "give one of them"),
        ({"max_line_width": 0}, "--max-line-width must be at least 1, got 0"),
        ({"max_words_per_line": -1}, "--max-words-per-line must be at least 1"),
    ],
)
def test_options_that_cannot_work_are_refused_in_one_line(options, message):
    with pytest.raises(ValueError, match=message):
        SubtitleLayout(**options)


def test_segments_without_word_times_are_refused_naming_the_aligner():
    result = mq.Transcription("Hi.", "English", [mq.Segment(0.0, 1.0, "Hi.", language="English")])
    with pytest.raises(ValueError, match="--aligner"):
        SubtitleLayout(max_line_width=20).cues(result)


CLIP = Path(__file__).parents[1] / "fixtures" / "audio" / "short.wav"


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mlx_qwen3asr", *map(str, args)], capture_output=True, text=True)


def test_cli_subtitle_flags_print_the_layout_of_the_librarys_words(
    tiny_checkpoint, tiny_model, tiny_aligner_dir, tiny_aligner
):
    expected = mq.transcribe(CLIP, tiny_model, max_new_tokens=8, aligner=tiny_aligner)
    layout = SubtitleLayout(max_line_width=12, max_line_count=2, highlight_words=True)
    assert len(layout.cues(expected)) >= 2, "the tiny model's words must make several cues, or equality proves little"
    flags = ("--max-line-width", 12, "--max-line-count", 2, "--highlight-words")
    run = _cli(
        CLIP, "--model", tiny_checkpoint, "--max-new-tokens", 8, "--aligner", tiny_aligner_dir, "-f", "vtt", *flags
    )
    assert run.returncode == 0 and run.stdout == render(expected, "vtt", layout=layout), run.stderr


def test_cli_subtitle_flags_with_an_output_folder_write_the_printed_layout(
    tiny_checkpoint, tiny_model, tiny_aligner_dir, tiny_aligner, tmp_path
):
    expected = mq.transcribe(CLIP, tiny_model, max_new_tokens=8, aligner=tiny_aligner)
    layout = SubtitleLayout(max_words_per_line=2, highlight_words=True)
    assert len(layout.cues(expected)) >= 2, "the tiny model's words must make several cues, or equality proves little"
    flags = ("--max-words-per-line", 2, "--highlight-words", "-f", "srt", "-f", "vtt", "-f", "txt")
    run = _cli(
        CLIP, "--model", tiny_checkpoint, "--max-new-tokens", 8, "--aligner", tiny_aligner_dir, "-o", tmp_path, *flags
    )
    assert run.returncode == 0, run.stderr
    for fmt in ("srt", "vtt", "txt"):
        assert (tmp_path / f"short.{fmt}").read_text() == render(expected, fmt, layout=layout), fmt
    assert run.stdout == render(expected, "srt", layout=layout), "printed as written: the first format"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--max-line-width", 30), "lay out the aligner's word times: add --aligner"),
        (("--aligner", "A", "--max-line-count", 2), "--max-line-count needs --max-line-width"),
        (("--aligner", "A", "--highlight-words", "--timestamps", "word"), "one cue per word: leave out"),
    ],
)
def test_cli_subtitle_flags_that_cannot_work_are_refused_before_loading(tiny_checkpoint, args, message):
    run = _cli(CLIP, "--model", tiny_checkpoint, "-f", "srt", *args)
    assert run.returncode == 2 and message in run.stderr and run.stderr.count("\n") == 1, run.stderr
