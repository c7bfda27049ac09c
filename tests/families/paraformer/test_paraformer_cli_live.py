"""The command line (run for real in a subprocess) and a live session on a Paraformer release folder."""

import json
import subprocess
import sys

import numpy as np
from paraformer_goldens import FIXTURES, clip

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.live import fed_in_real_time
from mlx_qwen3asr.testing.signals import silence


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mlx_qwen3asr", *map(str, args)], capture_output=True, text=True)


def test_the_cli_writes_the_librarys_text_and_words(tmp_path, paraformer_dir, paraformer):
    run = _cli(FIXTURES / "audio" / "short.wav", "--model", paraformer_dir, "-f", "json", "-o", tmp_path)
    assert run.returncode == 0, run.stderr
    written = json.loads((tmp_path / "short.json").read_text(encoding="utf-8"))
    expected = mq.transcribe(clip("short"), paraformer)
    assert written["text"] == expected.text
    words = [(w.text, w.start, w.end) for w in expected.segments[0].words]
    assert [(w["text"], w["start"], w["end"]) for w in written["segments"][0]["words"]] == words


def test_hotwords_on_the_cli_are_refused_in_one_line(paraformer_dir):
    run = _cli(FIXTURES / "audio" / "short.wav", "--model", paraformer_dir, "--hotwords", "Qwen,MLX")
    assert run.returncode != 0 and "Paraformer takes no context or hotwords" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_a_live_session_commits_transcribe_text_and_shows_partials(paraformer):
    audio = np.concatenate([silence(0.5), clip("short"), silence(1.2), clip("exact"), silence(1.2)])
    events = fed_in_real_time(paraformer, audio)
    commits = [e for e in events if e.type == "commit"]
    assert len(commits) == 2, [e.text for e in commits]
    for commit in commits:
        assert commit.text and commit.text == mq.transcribe(commit.audio, paraformer).text
    assert len([e for e in events if e.type == "partial" and e.text]) >= 2, "partials come while an utterance is open"
