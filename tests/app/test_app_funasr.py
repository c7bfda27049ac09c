"""The dictation app (`scripts/dictate.sh --input FILE --model FOLDER`) with a Fun-ASR-Nano folder."""

import json
import subprocess

import numpy as np
from dictation_helpers import MAX_NEW_TOKENS, RATE, ROOT, app_command, app_env, noise, silence, write_wav

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.random_funasr import tiny_funasr_config, write_random_funasr


def run_app(folder, wav, *flags) -> subprocess.CompletedProcess:
    command = app_command(folder, "--input", str(wav), *flags)
    return subprocess.run(command, capture_output=True, text=True, env=app_env(), cwd=ROOT, timeout=120)


def test_the_app_commits_what_offline_transcription_gives_with_a_fun_asr_nano_folder(tmp_path):
    folder = write_random_funasr(tmp_path / "funasr", tiny_funasr_config(), seed=0)
    speech = mq.load_audio(ROOT / "tests" / "fixtures" / "audio" / "short.wav")
    audio = np.concatenate([silence(0.5), speech, silence(1.0)])
    wav = write_wav(tmp_path / "s.wav", np.round((audio + noise(len(audio) / RATE, -55.0)) * 32767))
    run = run_app(folder, wav, "--events", "jsonl", "--partials", "offline", "--language", "English")
    assert run.returncode == 0, run.stderr
    commits = [e for e in map(json.loads, run.stdout.splitlines()) if e["type"] == "commit"]
    assert len(commits) == 1 and commits[0]["language"] == "English" and commits[0]["text"], commits
    model = mq.load(folder, dtype="float32")
    start, end = int(commits[0]["start"] * RATE), int(commits[0]["end"] * RATE)
    assert commits[0]["text"] == mq.transcribe(mq.load_audio(wav)[start:end], model, language="English",
                                               max_new_tokens=MAX_NEW_TOKENS).text  # fmt: skip


def test_the_app_refuses_a_language_fun_asr_nano_cannot_be_told_in_one_line(tmp_path):
    folder = write_random_funasr(tmp_path / "funasr", tiny_funasr_config(), seed=0)
    wav = write_wav(tmp_path / "s.wav", np.zeros(RATE, np.int16))
    run = run_app(folder, wav, "--language", "German")
    assert run.returncode != 0
    assert "Fun-ASR-Nano cannot be told the language 'German'" in run.stderr and "Traceback" not in run.stderr
