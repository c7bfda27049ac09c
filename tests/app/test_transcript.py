"""Committed text on disk: appended, one line per utterance, lossless audio when asked."""

import errno
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.streaming import Event
from mlx_qwen3asr_app.errors import AppError
from mlx_qwen3asr_app.options import parse_args
from mlx_qwen3asr_app.sink import with_words
from mlx_qwen3asr_app.transcript import AudioSaver, KeptWriter, TranscriptFile, timestamp


def commit(text: str, start: float = 0.0, audio=None) -> Event:
    audio = audio if audio is not None else np.zeros(10, np.float32)
    return Event("commit", start + 1.0, start=start, end=start + 1.0, text=text, language="English", audio=audio)


def test_lines_are_appended_to_an_existing_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("earlier\n")
    out = TranscriptFile(str(path))
    out.write(commit("first"))
    assert path.read_text() == "earlier\nfirst\n", "visible on disk before close (flushed)"
    out.write(commit("second, ünïcode 默"))
    out.close()
    assert path.read_text(encoding="utf-8").splitlines() == ["earlier", "first", "second, ünïcode 默"]


def test_timestamps_prefix_the_utterance_start():
    assert timestamp(3725.25) == "[01:02:05.2]", timestamp(3725.25)


def test_timestamped_lines(tmp_path):
    out = TranscriptFile(str(tmp_path / "t.txt"), timestamps=True)
    out.write(commit("hello", start=12.5))
    out.close()
    assert (tmp_path / "t.txt").read_text() == "[00:00:12.5] hello\n"


def test_saved_utterance_audio_reads_back_sample_exact(tmp_path):
    audio = np.random.default_rng(0).uniform(-0.9, 0.9, 16000).astype(np.float32)
    saver = AudioSaver(str(tmp_path / "audio"))
    saver.write(commit("x", audio=audio))
    saver.write(commit("y", audio=audio[:100]))
    files = sorted((tmp_path / "audio").glob("*.wav"))
    assert [f.name for f in files] == ["utt-0001.wav", "utt-0002.wav"]
    np.testing.assert_array_equal(mq.load_audio(files[0]), audio, "float32 WAV must be lossless")


class FlakyWriter:
    """A writer on a disk that is full for `failing` commits (by text), then has room again."""

    name = "--output flaky.txt"

    def __init__(self, failing: set[str]) -> None:
        self.failing, self.lines, self.closed = failing, [], False

    def write(self, commit: Event) -> None:
        if commit.text in self.failing:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.lines.append(commit.text)

    def salvage(self, commits):
        return "/nowhere"

    def close(self) -> None:
        self.closed = True


def test_a_failing_write_keeps_the_line_says_so_once_and_retries_in_order():
    said: list[str] = []
    flaky = FlakyWriter(failing={"two", "three"})
    kept = KeptWriter(flaky, said.append)
    for text in ("one", "two", "three"):
        kept.write(commit(text))
    assert flaky.lines == ["one"] and len(said) == 1, (flaky.lines, said)
    assert said[0].startswith("--output flaky.txt: cannot write (No space left on device)"), said
    flaky.failing.clear()  # space again
    kept.write(commit("four"))
    assert flaky.lines == ["one", "two", "three", "four"], "kept lines are written first, in order"
    assert "works again" in said[-1] and len(said) == 2, said
    kept.close()
    assert flaky.closed and len(said) == 2, f"nothing left to report: {said}"


def test_a_full_disk_to_the_end_puts_the_unwritten_lines_in_the_temp_folder_and_says_which(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    said: list[str] = []
    kept = KeptWriter(TranscriptFile("/dev/full"), said.append)  # a real file that is always full
    kept.write(commit("first"))
    kept.write(commit("second"))
    kept.close()
    saved = list(tmp_path.glob("dictation-unsaved-*.txt"))
    assert len(saved) == 1 and saved[0].read_text() == "first\nsecond\n", saved
    assert said[-1] == (
        f"--output /dev/full: the first 0 of this session's 2 utterances are in it; the last 2 "
        f"could not be written (No space left on device); they are in {saved[0]}"
    ), said


HALF_WRITE = """
import resource, signal, sys
from mlx_qwen3asr.streaming import Event
from mlx_qwen3asr_app.transcript import TranscriptFile
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (10, 10))  # the disk fills 10 bytes in
out = TranscriptFile(sys.argv[1])
for text in ("whole", "a line that does not fit"):
    try:
        out.write(Event("commit", 1.0, start=0.0, end=1.0, text=text, language="English"))
    except OSError as e:
        print(e.errno)
"""


def test_a_write_that_fails_half_way_leaves_no_half_line_in_the_file(tmp_path):
    path = tmp_path / "notes.txt"
    run = subprocess.run(
        [sys.executable, "-c", HALF_WRITE, str(path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert run.stdout.strip() == str(errno.EFBIG), run.stderr
    assert path.read_text() == "whole\n", "the part of the line that fitted is cut back: a retry adds it whole"


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder that exists but where no file can be made (root ignores permission bits: use /proc)."""
    if os.geteuid() == 0:
        return Path(f"/proc/{os.getpid()}")
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o555)
    return folder


def test_a_save_audio_folder_that_cannot_be_written_is_refused_at_start(tmp_path):
    with pytest.raises(AppError, match="Cannot write into --save-audio folder .*choose a writable folder"):
        AudioSaver(str(unwritable_folder(tmp_path)))


def test_a_gap_mark_is_a_line_in_the_transcript_but_no_audio_file(tmp_path):
    mark = Event("gap", 1.5, start=1.5, end=8.5, text="[… 7.0 s of audio lost …]")
    out, saver = TranscriptFile(str(tmp_path / "t.txt")), AudioSaver(str(tmp_path / "audio"))
    for commit_ in (commit("before"), mark, commit("after")):
        out.write(commit_)
        saver.write(commit_)
    assert (tmp_path / "t.txt").read_text() == "before\n[… 7.0 s of audio lost …]\nafter\n"
    assert sorted(p.name for p in (tmp_path / "audio").iterdir()) == ["utt-0001.wav", "utt-0002.wav"]


def test_with_an_aligner_timestamped_lines_carry_each_words_session_times(tmp_path, tiny_aligner, speech):
    out = TranscriptFile(str(tmp_path / "t.txt"), timestamps=True)
    out.write(with_words(commit("Hello world, again.", start=100.0, audio=speech), tiny_aligner))
    out.close()
    words = mq.align(speech, "Hello world, again.", tiny_aligner, "English")
    times = " ".join(f"{w.text}@{100 + w.start:.2f}-{100 + w.end:.2f}" for w in words)
    assert (tmp_path / "t.txt").read_text() == f"[00:01:40.0] Hello world, again. | {times}\n"
    assert [w.text for w in words] == ["Hello", "world", "again"]


def test_the_aligner_flag_is_refused_without_timestamped_output_or_events(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--aligner", "Qwen/Qwen3-ForcedAligner-0.6B", "--output", "t.txt"])
    assert "use it with --output FILE --timestamps or --events jsonl" in capsys.readouterr().err
    assert parse_args(["--aligner", "A", "--output", "t.txt", "--timestamps"]).aligner == "A"
    assert parse_args(["--aligner", "A", "--events", "jsonl"]).aligner == "A"


def test_aligned_words_travel_in_the_jsonl_commit_event(tiny_aligner, speech):
    event = with_words(commit("Hello world, again.", start=100.0, audio=speech), tiny_aligner)
    words = event.to_dict()["words"]
    assert [w["text"] for w in words] == ["Hello", "world", "again"]
    assert all(100.0 <= w["start"] <= w["end"] for w in words)
