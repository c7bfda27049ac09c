"""What is shown: the status line's fields, and plain committed lines when not on a terminal."""

import io

from rich.console import Console

from mlx_qwen3asr_app.display import LiveDisplay, PlainDisplay, level_meter, status_line
from mlx_qwen3asr_app.stats import SessionStats


def test_status_line_shows_level_language_latency_rtf_overflows_and_elapsed():
    stats = SessionStats(
        started=100.0,
        audio_seconds=10.0,
        compute_seconds=2.5,
        latencies=[0.84],
        overflows=3,
        language="English",
        level_db=-30.0,
        speaking=True,
    )
    line = status_line(stats, now=183.0).plain
    for part in ("●", "▮▮▮▮▮▮▯▯▯▯▯▯", "-30 dB", "English", "last 0.84 s", "RTF 0.25", "overflows 3", "01:23"):
        assert part in line, f"{part!r} missing from status line {line!r}"


def test_level_meter_spans_minus_60_to_0_dbfs():
    assert level_meter(-80) == "▯" * 12 and level_meter(0) == "▮" * 12 and level_meter(-30).count("▮") == 6


def test_plain_display_prints_committed_lines_only_and_messages_to_stderr():
    out, err = io.StringIO(), io.StringIO()
    display = PlainDisplay(out, err)
    display.tentative("not yet")
    display.commit("one")
    display.message("device lost")
    display.warn("silent")
    display.warn("silent")
    display.commit("two")
    assert out.getvalue() == "one\ntwo\n", "stdout holds committed text only"
    assert err.getvalue() == "device lost\nsilent\n", "a lasting warning is said once"


def test_live_display_prints_commits_and_draws_the_status_line():
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100)
    with LiveDisplay(SessionStats(), console=console) as display:
        display.tentative("half a sent")
        display.commit("a whole sentence")
    assert "a whole sentence" in buffer.getvalue(), "committed text is printed"
    assert "overflows 0" in buffer.getvalue(), "the status line is drawn"


def test_the_status_line_says_how_far_decoding_is_behind_once_it_passes_a_second():
    stats = SessionStats(started=0.0, audio_seconds=10.0, compute_seconds=15.0, behind_seconds=3.24)
    line = status_line(stats, now=10.0)
    assert "behind 3.2 s" in line.plain, line.plain
    assert any(
        span.style == "bold red" and line.plain[span.start : span.end] == " │ behind 3.2 s" for span in line.spans
    ), "shown in red"
    stats.behind_seconds = 0.8  # less than one utterance's decode: normal
    assert "behind" not in status_line(stats, now=10.0).plain
