"""The real app listening to a real PortAudio microphone: a virtual PulseAudio source that plays
espeak-ng speech (virtual_mic/start.sh; its Debian packages are installed by scripts/env.sh, never
by a test). Nothing in the app is faked: sounddevice opens ALSA's default device at its native
rate and the app resamples to 16 kHz off the callback. Waits scale with the machine's load
(dictation_helpers.patient), and every process a test starts is killed when it ends."""

import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from dictation_helpers import (
    RunningApp,
    SpeechFile,
    app_command,
    expected_lines,
    make_speech_file,
    patient,
    saved_utterances,
)

VMIC = Path(__file__).resolve().parent / "virtual_mic"


@pytest.fixture(scope="module")
def virtual_mic():
    """Start (or reuse) the virtual microphone daemon; stop it afterwards only if we started it."""
    if not (VMIC / "start.sh").exists():
        pytest.skip(f"virtual microphone scripts not found at {VMIC}")
    run = subprocess.run(
        [VMIC / "start.sh"], capture_output=True, text=True, timeout=120, env={**os.environ, "VMIC_SKIP_INSTALL": "1"}
    )
    if run.returncode != 0:
        pytest.skip(
            "PulseAudio virtual microphone cannot run here (scripts/test.sh installs its packages): "
            f"{run.stderr.strip()[-400:]}"
        )
    env = dict(
        line.removeprefix("export ").split("=", 1) for line in run.stdout.splitlines() if line.startswith("export ")
    )
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the app inherits PULSE_SERVER
    yield env
    if "started pulseaudio" in run.stderr:
        subprocess.run([VMIC / "stop.sh"], check=False)
    for k, v in saved.items():
        os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


@pytest.fixture(scope="module")
def mic_speech(tmp_path_factory) -> SpeechFile:
    """Two short sentences, 1.2 s apart: about 5 s to play."""
    return make_speech_file(
        tmp_path_factory.mktemp("mic"), ("Hello there.", "This is a microphone test."), lead=0.5, gap=1.2
    )


def play(path: Path) -> None:
    subprocess.run([VMIC / "play.sh", path], check=True, timeout=patient(60))


def best_correlation(captured: np.ndarray, played: np.ndarray) -> float:
    """Peak normalised cross-correlation (the capture went 16 k -> 44.1 k -> 16 k) of the played
    sentence without its silent edges: the segmenter may end an utterance inside the sentence
    file's trailing silence, and a lag that puts the whole file inside it must still be tried."""
    audible = np.flatnonzero(np.abs(played) > 1e-3)
    played = played[audible[0] : audible[-1] + 1]
    c = np.correlate(captured, played, mode="valid") if len(captured) >= len(played) else np.array([0.0])
    return float(np.max(np.abs(c)) / (np.linalg.norm(played) * np.linalg.norm(captured) + 1e-12))


def test_microphone_dictation_commits_each_sentence_as_offline_transcription_says(
    virtual_mic, listening_checkpoint, listening_model, mic_speech, tmp_path
):
    saved = tmp_path / "saved"
    app = RunningApp(app_command(listening_checkpoint, "--save-audio", str(saved)))
    app.wait_for_error("listening: ")
    app.wait_for_error("microphone silent for 5 s", timeout=8)  # nothing plays yet: digital silence
    play(mic_speech.path)
    for _ in mic_speech.sentences:  # the last one is committed after its pause
        app.next_line(timeout=10)
    app.process.send_signal(signal.SIGINT)
    status, err = app.finish()
    assert status == 0, f"Ctrl-C must exit 0; stderr:\n{err}"
    utterances = saved_utterances(saved)
    assert len(app.lines) == len(utterances) == 2, f"2 sentences spoken, lines: {app.lines}\n{err}"
    assert app.lines == expected_lines(listening_model, utterances), "committed == mq.transcribe"
    assert "input overflows" not in err, f"no overflows expected:\n{err}"
    for i, (u, sentence) in enumerate(zip(utterances, mic_speech.sentences)):
        correlation = best_correlation(u, sentence)
        assert correlation > 0.95, (
            f"utterance {i + 1} ({len(u) / 16000:.2f} s) should contain sentence {i + 1} "
            f"({len(sentence) / 16000:.2f} s): correlation {correlation:.3f}\n{err}"
        )


def test_a_lost_microphone_keeps_what_was_captured_and_is_reopened(
    virtual_mic, listening_checkpoint, listening_model, mic_speech, tmp_path
):
    saved = tmp_path / "saved"
    app = RunningApp(app_command(listening_checkpoint, "--save-audio", str(saved)))
    app.wait_for_error("listening: ")
    player = subprocess.Popen([VMIC / "play.sh", mic_speech.path], stderr=subprocess.DEVNULL)
    try:
        app.next_line(timeout=15)  # first sentence committed; the second begins 1.2 s after it ended
        time.sleep(1.6)  # about 1 s into the second sentence
        pid = int(Path(virtual_mic["VMIC_DIR"], "run", "pulse", "pid").read_text())
        os.kill(pid, signal.SIGKILL)  # the sound server dies mid-sentence
        player.wait(timeout=30)
    finally:
        player.kill()  # no-op once it has exited
        player.wait(timeout=10)
    app.wait_for_error("input device lost", timeout=15)
    cut_short = app.next_line(timeout=10)  # what was captured of sentence 2 is committed
    subprocess.run(
        [VMIC / "start.sh"],
        check=True,
        capture_output=True,
        timeout=patient(120),
        env={**os.environ, "VMIC_SKIP_INSTALL": "1"},
    )
    app.wait_for_error("input device reopened", timeout=10)
    play(mic_speech.path.parent / "s0.wav")
    app.next_line(timeout=10)
    app.process.send_signal(signal.SIGINT)
    status, err = app.finish()
    assert status == 0, f"exit {status}; stderr:\n{err}"
    assert cut_short == app.lines[1] and len(app.lines) == 3, f"lines {app.lines}\n{err}"
    assert app.lines == expected_lines(listening_model, saved_utterances(saved)), "committed == mq.transcribe"
