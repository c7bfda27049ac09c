"""Committed text on disk: appended, one line per utterance, lossless audio when asked."""

import numpy as np
import pytest

import mlx_qwen3asr as mq
from app.options import parse_args
from app.pipeline import Commit
from app.transcript import AudioSaver, TranscriptFile, timestamp


def commit(text: str, start: float = 0.0, audio=None) -> Commit:
    return Commit(text, start, start + 1.0, "English", audio if audio is not None else np.zeros(10, np.float32))


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


def test_with_an_aligner_timestamped_lines_carry_each_words_session_times(tmp_path, tiny_aligner, speech):
    out = TranscriptFile(str(tmp_path / "t.txt"), timestamps=True, aligner=tiny_aligner)
    out.write(commit("Hello world, again.", start=100.0, audio=speech))
    out.close()
    words = mq.align(speech, "Hello world, again.", tiny_aligner, "English")
    times = " ".join(f"{w.text}@{100 + w.start:.2f}-{100 + w.end:.2f}" for w in words)
    assert (tmp_path / "t.txt").read_text() == f"[00:01:40.0] Hello world, again. | {times}\n"
    assert [w.text for w in words] == ["Hello", "world", "again"]


def test_the_aligner_flag_is_refused_without_timestamped_output(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--aligner", "Qwen/Qwen3-ForcedAligner-0.6B", "--output", "t.txt"])
    assert "use it with --output FILE --timestamps" in capsys.readouterr().err
    assert parse_args(["--aligner", "A", "--output", "t.txt", "--timestamps"]).aligner == "A"
