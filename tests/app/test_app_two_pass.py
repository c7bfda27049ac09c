"""The dictation app with `--partials-model`: tentative text from a SenseVoiceSmall folder, commits from --model
exactly as offline transcription gives them."""

import json
import subprocess

import numpy as np
import pytest
from dictation_helpers import MAX_NEW_TOKENS, RATE, ROOT, app_command, app_env, noise, silence, write_wav

import mlx_qwen3asr as mq
from mlx_qwen3asr_app.options import parse_args


def test_the_app_shows_the_first_models_partials_and_commits_the_final_models_text(
    tiny_checkpoint, tiny_model, sensevoice_dir, speech, tmp_path
):
    audio = np.concatenate([silence(0.5), speech, silence(1.0)])
    wav = write_wav(tmp_path / "s.wav", np.round((audio + noise(len(audio) / RATE, -55.0)) * 32767))
    command = app_command(tiny_checkpoint, "--input", str(wav), "--events", "jsonl", "--partials-model", sensevoice_dir)
    run = subprocess.run(command, capture_output=True, text=True, env=app_env(), cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]  # real-time pace: partials come
    commits = [e for e in events if e["type"] == "commit"]
    assert len(commits) == 1 and commits[0]["text"], commits
    start, end = int(commits[0]["start"] * RATE), int(commits[0]["end"] * RATE)
    offline = mq.transcribe(mq.load_audio(wav)[start:end], tiny_model, max_new_tokens=MAX_NEW_TOKENS)
    assert commits[0]["text"] == offline.text, "the commit is the final model's transcribe"
    assert any(e["type"] == "partial" and e["text"] for e in events), "the first model's partials are shown"
    assert "loading partials model" in run.stderr, "the start-up names the second model's stage"


def test_a_partials_model_with_partials_off_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--partials-model", "folder", "--partials", "off"])
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--partials-model makes tentative text" in error, error
