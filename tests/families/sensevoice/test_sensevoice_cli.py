"""The command line on a SenseVoiceSmall release folder, run for real in a subprocess."""

import json
import subprocess
import sys

from sensevoice_goldens import FIXTURES, clip

import mlx_qwen3asr as mq
from mlx_qwen3asr.options import DecodeOptions

SHORT = FIXTURES / "audio" / "short.wav"


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mlx_qwen3asr", *map(str, args)], capture_output=True, text=True)


def test_the_cli_writes_the_librarys_text_words_and_itn_choice(tmp_path, sensevoice_dir, sensevoice):
    run = _cli(SHORT, "--model", sensevoice_dir, "--itn", "--language", "en", "-f", "json", "-o", tmp_path)
    assert run.returncode == 0, run.stderr
    written = json.loads((tmp_path / "short.json").read_text())
    expected = mq.transcribe(clip("short"), sensevoice, options=DecodeOptions(language="en", itn=True))
    assert written["text"] == expected.text and written["language"] == "English"
    words = [(w.text, w.start, w.end) for w in expected.segments[0].words]
    assert [(w["text"], w["start"], w["end"]) for w in written["segments"][0]["words"]] == words


def test_hotwords_on_the_cli_are_refused_in_one_line(sensevoice_dir):
    run = _cli(SHORT, "--model", sensevoice_dir, "--hotwords", "Qwen,MLX")
    assert run.returncode != 0 and "SenseVoiceSmall takes no context or hotwords" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
