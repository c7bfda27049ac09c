"""A lost microphone as the user sees it, under tmux: one clear line, the status line in place, and
none of the audio library's own messages (ALSA/PulseAudio/PortAudio noise while it retries)."""

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from dictation_helpers import ROOT, app_command, app_env, patient
from test_dictation_e2e import Tmux

VMIC = Path(__file__).resolve().parent / "virtual_mic"
NATIVE_NOISE = ("ALSA lib", "PortAudio", "pulse.c", "Expression", "snd_pcm")


@pytest.fixture
def private_mic(tmp_path):
    """A virtual microphone with its own PulseAudio daemon (never the shared one other tests use)."""
    if shutil.which("pulseaudio") is None or shutil.which("tmux") is None:
        pytest.skip("needs pulseaudio and tmux (scripts/env.sh installs them)")
    env = {**os.environ, "VMIC_DIR": str(tmp_path / "vmic"), "VMIC_GLOBAL": "0", "VMIC_SKIP_INSTALL": "1"}
    run = subprocess.run([VMIC / "start.sh"], capture_output=True, text=True, timeout=120, env=env)
    if run.returncode != 0:
        pytest.skip(f"PulseAudio virtual microphone cannot run here: {run.stderr.strip()[-400:]}")
    exports = dict(
        line.removeprefix("export ").split("=", 1) for line in run.stdout.splitlines() if line.startswith("export ")
    )
    yield exports, tmp_path / "vmic" / "run" / "pulse" / "pid"
    subprocess.run([VMIC / "stop.sh"], env=env, capture_output=True, check=False, timeout=60)


def test_a_lost_microphone_is_one_clear_line_with_the_status_line_in_place(private_mic, listening_checkpoint, tmp_path):
    exports, pid_file = private_mic
    env = {k: v for k, v in app_env().items() if k in ("PYTHONPATH", "LD_PRELOAD")}
    env.update(PULSE_SERVER=exports["PULSE_SERVER"])
    variables = " ".join(f"{k}={v}" for k, v in env.items())
    tmux = Tmux(tmp_path, f"cd {ROOT} && env {variables} {' '.join(app_command(listening_checkpoint))}")
    try:
        tmux.wait_for("listening: ", timeout=60)
        os.kill(int(pid_file.read_text()), signal.SIGKILL)  # the sound server dies
        tmux.wait_for("input device lost", timeout=patient(30))  # PortAudio notices late under load
        time.sleep(3.5)  # three attempts to reopen it, each of which makes ALSA complain
        screen = tmux.screen()
        tmux.keys("C-c")
        final = tmux.wait_for("__EXIT__=")
    finally:
        tmux.close()
    noise = [line for line in screen.splitlines() if any(word in line for word in NATIVE_NOISE)]
    assert noise == [], "the audio library's messages must not reach the screen:\n" + "\n".join(noise)
    lines = [line for line in screen.splitlines() if line.strip()]
    assert sum("input device lost" in line for line in lines) == 1, f"said once:\n{screen}"
    assert "overflows" in lines[-1] or "overflows" in lines[-2], f"the status line stays at the bottom:\n{screen}"
    assert "__EXIT__=0" in final, final
