"""--copy and --type: the Linux paths for real (Xvfb, xclip, xdotool, a Tk text field that receives
the typing), the macOS paths by their exact commands."""

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from dictation_helpers import ROOT, app_command, app_env
from test_dictation_e2e import Tmux

from mlx_qwen3asr_app.errors import AppError
from mlx_qwen3asr_app.outputs import MAC_KEYSTROKE, Delivery

X_TOOLS = ("Xvfb", "xclip", "xdotool", "xdpyinfo")


@pytest.fixture(scope="module")
def x_display():
    """A private X server (Xvfb) for the module; its DISPLAY name."""
    missing = [tool for tool in X_TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (scripts/env.sh installs xvfb xclip xdotool x11-utils)")
    for number in range(91, 120):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
            break
    display = f":{number}"
    server = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"], stderr=subprocess.DEVNULL
    )
    try:
        end = time.monotonic() + 10
        while subprocess.run(["xdpyinfo", "-display", display], capture_output=True).returncode != 0:
            assert server.poll() is None and time.monotonic() < end, "Xvfb did not start"
            time.sleep(0.1)
        yield display
    finally:
        server.kill()
        server.wait()


def clipboard(display: str) -> str:
    return subprocess.run(
        ["xclip", "-selection", "clipboard", "-o"], capture_output=True, text=True, env={"DISPLAY": display}, timeout=10
    ).stdout


class TextField:
    """tk_entry.py in its own process, focused and ready for keys."""

    def __init__(self, display: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).parent / "tk_entry.py")],
            stdout=subprocess.PIPE,
            text=True,
            env={**app_env(), "DISPLAY": display},
        )
        assert self.process.stdout.readline().strip() == "ready", "the text field should get the focus"

    def text(self) -> str:
        """What was typed into it (typing " END" ends it)."""
        subprocess.run(["xdotool", "type", "--", " END"], check=True, timeout=10)
        try:
            out, _ = self.process.communicate(timeout=20)
        finally:
            self.process.kill()
        return out.strip()


def test_each_committed_utterance_goes_to_the_x11_clipboard(x_display, monkeypatch):
    monkeypatch.setenv("DISPLAY", x_display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    delivery = Delivery("each", False, print)
    delivery.commit("first words")
    delivery.close()
    assert clipboard(x_display) == "first words"
    delivery = Delivery("each", False, print)
    delivery.commit("second, ünïcode")
    delivery.close()
    assert clipboard(x_display) == "second, ünïcode", "each commit replaces the clipboard"


def test_committed_text_is_typed_into_the_focused_window(x_display, monkeypatch):
    monkeypatch.setenv("DISPLAY", x_display)
    field = TextField(x_display)
    delivery = Delivery(None, True, print)
    delivery.commit("Hello there, this is typed.")
    delivery.commit("And a second one!")
    delivery.close()
    assert field.text() == "Hello there, this is typed. And a second one!", "utterances joined by a space"


def test_the_app_types_its_commits_and_copies_the_whole_transcript_on_exit(
    x_display, listening_checkpoint, speech_file, monkeypatch
):
    monkeypatch.setenv("DISPLAY", x_display)
    field = TextField(x_display)
    run = subprocess.run(
        app_command(listening_checkpoint, "--input", str(speech_file.path), "--fast", "--type", "--copy", "exit"),
        capture_output=True,
        text=True,
        env={**app_env(), "DISPLAY": x_display},
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 3, lines
    assert clipboard(x_display) == "\n".join(lines), "--copy exit: the whole transcript, one line per utterance"
    assert "transcript copied to the clipboard" in run.stderr, run.stderr
    assert "failed" not in run.stderr, run.stderr
    typed, expected = field.text(), " ".join(lines)
    # xdotool can drop characters outside the keyboard layout (here CJK from the random model) when
    # the machine is loaded (its man page, BUGS): the layout's own characters must all arrive in order.
    in_layout = lambda text: "".join(c for c in text if c.isascii())  # noqa: E731
    assert typed and in_layout(typed) == in_layout(expected), (
        f"--type: every committed utterance typed into the focused window:\n{typed!r}\n{expected!r}"
    )


def test_macos_uses_pbcopy_and_a_system_events_keystroke():
    calls = []
    delivery = Delivery(
        "each", True, print, runner=lambda argv, text: calls.append((argv, text)) or 0, platform="darwin", env={}
    )
    delivery.commit("Hi there")
    delivery.commit("again")
    delivery.close()
    assert calls == [
        (["pbcopy"], "Hi there"),
        (
            [
                "osascript",
                "-e",
                "on run argv",
                "-e",
                'tell application "System Events" to keystroke (item 1 of argv)',
                "-e",
                "end run",
                "Hi there",
            ],
            "",
        ),
        (["pbcopy"], "again"),
        (MAC_KEYSTROKE + [" again"], ""),
    ], calls


def test_wayland_copies_with_wl_copy():
    calls = []
    delivery = Delivery(
        "each",
        False,
        print,
        runner=lambda argv, text: calls.append(argv) or 0,
        platform="linux",
        env={"WAYLAND_DISPLAY": "wayland-0"},
        which=lambda tool: f"/usr/bin/{tool}",
    )
    delivery.commit("x")
    delivery.close()
    assert calls == [["wl-copy"]]


def test_missing_tools_fail_at_start_with_the_package_to_install():
    with pytest.raises(AppError, match="xclip on X11 \\(apt install xclip\\)"):
        Delivery("each", False, print, platform="linux", env={}, which=lambda tool: None)
    with pytest.raises(AppError, match="--type needs xdotool"):
        Delivery(None, True, print, platform="linux", env={}, which=lambda tool: None)


def test_a_failing_clipboard_is_reported_once_and_the_session_goes_on():
    said = []
    delivery = Delivery("each", False, said.append, runner=lambda argv, text: 1, platform="darwin", env={})
    delivery.commit("a")
    delivery.commit("b")
    delivery.close()
    assert said == ["clipboard failed (pbcopy: exit status 1); the text is still in the transcript"], said


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (apt install tmux)")
def test_keys_pause_and_resume_listening_and_copy_the_transcript(
    x_display, listening_checkpoint, speech_file, tmp_path
):
    env = " ".join(
        f"{k}={v}"
        for k, v in {**app_env(), "DISPLAY": x_display}.items()
        if k in ("PYTHONPATH", "LD_PRELOAD", "DISPLAY")
    )
    output = tmp_path / "notes.txt"
    command = " ".join(app_command(listening_checkpoint, "--input", str(speech_file.path), "--output", str(output)))
    tmux = Tmux(tmp_path, f"cd {ROOT} && env {env} {command}")
    try:
        tmux.wait_for("keys: p pause/resume")
        end = time.monotonic() + 30
        while not output.exists() or not output.read_text():
            assert time.monotonic() < end, f"nothing committed; pane:\n{tmux.screen()}"
            time.sleep(0.05)
        tmux.keys("p")
        paused = tmux.wait_for("‖ paused")
        assert "paused: nothing is transcribed" in paused, paused
        tmux.keys("c")
        tmux.wait_for("transcript copied to the clipboard")
        copied = clipboard(x_display)
        tmux.keys("p")
        resumed = tmux.wait_for("listening again")
        tmux.keys("C-c")
        screen = tmux.wait_for("__EXIT__=")
    finally:
        tmux.close()
    assert "‖ paused" not in resumed.splitlines()[-1], "the status line no longer says paused"
    assert (
        copied and copied.splitlines() == output.read_text(encoding="utf-8").splitlines()[: len(copied.splitlines())]
    ), f"c copies the transcript so far: {copied!r}"
    assert "__EXIT__=0" in screen, screen
