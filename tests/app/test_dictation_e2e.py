"""The real app end to end with --input: pipe mode, the terminal UI under tmux, Ctrl-C and kills.

Each run replays espeak-ng sentences separated by 1.5 s of digital silence through exactly the
pipeline the microphone uses, with the audio-sensitive random model (see conftest.py).
"""

import os
import shutil
import signal
import subprocess
import time

import numpy as np
import pytest
from dictation_helpers import ROOT, RunningApp, app_command, app_env, expected_lines, saved_utterances, write_wav


def assert_utterances_hold_one_sentence_each(utterances, sentences):
    for i, (utterance, sentence) in enumerate(zip(utterances, sentences)):
        assert np.array_equal(np.trim_zeros(utterance), np.trim_zeros(sentence)), (
            f"utterance {i + 1} must be sentence {i + 1} exactly, with only silence around it"
        )


def test_pipe_mode_prints_one_line_per_utterance_equal_to_offline_transcription(
    listening_checkpoint, listening_model, speech_file, tmp_path
):
    saved = tmp_path / "saved"
    run = subprocess.run(
        # the energy rule's utterances: the listening model says different things for each (a sanity check
        # below); the default end-pointer, Silero VAD, is checked against the library in test_live_events
        app_command(
            listening_checkpoint,
            "--input",
            str(speech_file.path),
            "--fast",
            "--save-audio",
            str(saved),
            "--vad",
            "energy",
        ),
        capture_output=True,
        text=True,
        env=app_env(),
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, f"exit {run.returncode}; stderr:\n{run.stderr}"
    lines = run.stdout.splitlines()
    assert "\x1b" not in run.stdout, "no ANSI codes when stdout is not a terminal"
    utterances = saved_utterances(saved)
    assert len(utterances) == len(lines) == 3, f"3 sentences -> 3 lines, got {lines}"
    assert_utterances_hold_one_sentence_each(utterances, speech_file.sentences)
    assert lines == expected_lines(listening_model, utterances), "committed text == mq.transcribe"
    assert len(set(lines)) == 3, f"the listening model should say different things: {lines}"
    assert "session:" in run.stderr and "3 utterances" in run.stderr, f"summary on stderr:\n{run.stderr}"


def test_silence_and_quiet_noise_produce_no_text(listening_checkpoint, tmp_path):
    rng = np.random.default_rng(0)
    audio = np.concatenate([np.zeros(16000), rng.standard_normal(32000) * 10]).astype(np.int16)  # -70 dBFS
    run = subprocess.run(
        app_command(listening_checkpoint, "--input", str(write_wav(tmp_path / "q.wav", audio)), "--fast"),
        capture_output=True,
        text=True,
        env=app_env(),
        cwd=ROOT,
        timeout=60,
    )
    assert run.returncode == 0 and run.stdout == "", f"expected no text, got {run.stdout!r}\n{run.stderr}"
    assert "0 utterances" in run.stderr


def test_ctrl_c_commits_what_was_captured_and_the_file_has_every_line(listening_checkpoint, speech_file, tmp_path):
    output = tmp_path / "notes.txt"
    app = RunningApp(app_command(listening_checkpoint, "--input", str(speech_file.path), "--output", str(output)))
    first = app.next_line()
    time.sleep(1.5)  # into the second sentence
    app.process.send_signal(signal.SIGINT)
    status, err = app.finish()
    assert status == 0, f"Ctrl-C must exit 0; stderr:\n{err}"
    assert "stopping" in err and "session:" in err, f"stop message and summary expected:\n{err}"
    assert len(app.lines) == 2 and app.lines[0] == first, f"the half-spoken sentence is committed: {app.lines}"
    assert output.read_text(encoding="utf-8").splitlines() == app.lines, "the file has every committed line"


def test_a_full_disk_keeps_the_session_alive_and_says_where_the_text_went(listening_checkpoint, speech_file, tmp_path):
    env = {**app_env(), "TMPDIR": str(tmp_path)}
    run = subprocess.run(
        app_command(listening_checkpoint, "--input", str(speech_file.path), "--fast", "--output", "/dev/full"),
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, f"the session survives a failing --output; stderr:\n{run.stderr}"
    lines = run.stdout.splitlines()
    assert len(lines) == 3, f"every utterance is still shown: {lines}"
    assert run.stderr.count("cannot write (No space left on device)") == 1, f"said once:\n{run.stderr}"
    saved = list(tmp_path.glob("dictation-unsaved-*.txt"))
    assert len(saved) == 1 and saved[0].read_text().splitlines() == lines, "the unwritten lines are kept"
    assert f"the last 3 could not be written (No space left on device); they are in {saved[0]}" in run.stderr


def test_an_unwritable_save_audio_folder_is_refused_before_listening(listening_checkpoint, speech_file, tmp_path):
    folder = f"/proc/{os.getpid()}" if os.geteuid() == 0 else str(tmp_path / "ro")
    if os.geteuid() != 0:
        os.mkdir(folder, 0o555)
    run = subprocess.run(
        app_command(listening_checkpoint, "--input", str(speech_file.path), "--fast", "--save-audio", folder),
        capture_output=True,
        text=True,
        env=app_env(),
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 1 and run.stdout == "", run.stderr
    assert f"error: Cannot write into --save-audio folder {folder}" in run.stderr, run.stderr


def test_sigkill_loses_nothing_that_was_committed(listening_checkpoint, speech_file, tmp_path):
    output = tmp_path / "notes.txt"
    app = RunningApp(app_command(listening_checkpoint, "--input", str(speech_file.path), "--output", str(output)))
    app.next_line()
    app.process.kill()
    app.finish()
    on_disk = output.read_text(encoding="utf-8").splitlines()
    assert on_disk[: len(app.lines)] == app.lines and len(on_disk) >= 1, (
        f"every line shown before the kill must be on disk: shown {app.lines}, file {on_disk}"
    )


class Tmux:
    """A private tmux server (socket in the test's tmp dir) running one command in a pane."""

    def __init__(self, folder, command: str) -> None:
        self.base = ["tmux", "-S", str(folder / "tmux.sock"), "-f", "/dev/null"]
        subprocess.run(
            self.base
            + [
                "new-session",
                "-d",
                "-s",
                "app",
                "-x",
                "120",
                "-y",
                "30",
                f"stty -echoctl; {command}; echo __EXIT__=$?; sleep 60",
            ],
            check=True,
        )

    def screen(self) -> str:
        return subprocess.run(
            self.base + ["capture-pane", "-p", "-J", "-S", "-", "-t", "app"], capture_output=True, text=True
        ).stdout

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        while text not in (screen := self.screen()):
            assert time.monotonic() < end, f"{text!r} not on screen; pane:\n{screen}"
            time.sleep(0.05)
        return screen

    def keys(self, *keys: str) -> None:
        subprocess.run(self.base + ["send-keys", "-t", "app", *keys], check=True)

    def close(self) -> None:
        subprocess.run(self.base + ["kill-server"], check=False)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (apt install tmux)")
def test_terminal_ui_under_tmux_shows_status_commits_and_exits_cleanly_on_ctrl_c(
    listening_checkpoint, listening_model, speech_file, tmp_path
):
    output, saved = tmp_path / "notes.txt", tmp_path / "saved"
    env = " ".join(f"{k}={v}" for k, v in app_env().items() if k in ("PYTHONPATH", "LD_PRELOAD"))
    command = " ".join(
        app_command(
            listening_checkpoint, "--input", str(speech_file.path), "--output", str(output), "--save-audio", str(saved)
        )
    )
    tmux = Tmux(tmp_path, f"cd {ROOT} && env {env} {command}")
    try:
        running = tmux.wait_for("overflows 0")
        assert "[1/2] loading model" in running and "[2/2] warming up" in running, f"start-up stages:\n{running}"
        assert "RTF" in running and "last" in running and " dB" in running, f"status line:\n{running}"
        end = time.monotonic() + 30
        while not output.exists() or not output.read_text():
            assert time.monotonic() < end, f"nothing committed; pane:\n{tmux.screen()}"
            time.sleep(0.05)
        first = output.read_text(encoding="utf-8").splitlines()[0]
        tmux.wait_for(first)
        time.sleep(1.5)
        tmux.keys("C-c")
        screen = tmux.wait_for("__EXIT__=")
    finally:
        tmux.close()
    assert "__EXIT__=0" in screen, f"Ctrl-C must exit 0; pane:\n{screen}"
    assert "session:" in screen and "2 utterances" in screen, f"summary expected; pane:\n{screen}"
    lines = output.read_text(encoding="utf-8").splitlines()
    assert lines == expected_lines(listening_model, saved_utterances(saved)), "committed == mq.transcribe"
    assert all(line in screen for line in lines), f"each committed line is on screen:\n{screen}"


def test_a_wrong_input_or_output_fails_in_a_second_before_the_model_loads(listening_checkpoint, speech_file, tmp_path):
    for flags, message in [
        (["--input", "x.wav"], "Cannot read --input x.wav"),
        (["--input", str(speech_file.path), "--output", str(tmp_path / "no/such/dir/t.txt")], "Cannot open --output"),
        (["--input", str(speech_file.path), "--hotwords", "terms.txt"], "--hotwords terms.txt cannot be read"),
    ]:
        started = time.monotonic()
        run = subprocess.run(
            app_command(listening_checkpoint, *flags),
            capture_output=True,
            text=True,
            env=app_env(),
            cwd=ROOT,
            timeout=60,
        )
        assert run.returncode == 1 and f"error: {message}" in run.stderr, f"{run.returncode}: {run.stderr}"
        assert "loading model" not in run.stderr, f"checked before the model loads:\n{run.stderr}"
        assert time.monotonic() - started < 10, "a wrong flag fails at once (the app's start-up only)"


def test_a_missing_model_is_a_clear_error_before_anything_opens(speech_file, tmp_path):
    run = subprocess.run(
        app_command(tmp_path / "no-such-model", "--input", str(speech_file.path)),
        capture_output=True,
        text=True,
        env=app_env(),
        cwd=ROOT,
        timeout=60,
    )
    assert run.returncode == 1 and "error: Cannot load model" in run.stderr, f"{run.returncode}: {run.stderr}"
    assert "Traceback" not in run.stderr, run.stderr
