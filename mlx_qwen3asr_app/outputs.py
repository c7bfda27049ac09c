"""Dictated text where people want it: the clipboard (--copy, the c key) and the focused
application (--type), through the system's own tools.

    clipboard: pbcopy (macOS); wl-copy (Wayland); xclip -selection clipboard (X11)
    typing:    osascript -> System Events keystroke (macOS); xdotool type (X11)

The commands are chosen and checked when the session starts, so a missing tool fails in a second.
They run in order on a thread of their own (typing takes xdotool's default 12 ms per key: faster
loses non-ASCII characters), so they never delay decoding; `close` waits for the last one. A
command that fails is reported once and the session goes on (the text is still in the transcript).
"""

import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Optional

from .errors import AppError

Runner = Callable[[list, str], int]  # argv, text for its stdin -> exit status
MAC_KEYSTROKE = [
    "osascript",
    "-e",
    "on run argv",
    "-e",
    'tell application "System Events" to keystroke (item 1 of argv)',
    "-e",
    "end run",
]


def run_command(argv: list, text: str) -> int:
    # No pipes kept open: xclip forks a child that holds the selection until it is replaced.
    return subprocess.run(
        argv, input=text.encode("utf-8"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30
    ).returncode


def copy_command(
    platform: str = sys.platform,
    env: Mapping[str, str] = os.environ,
    which: Callable[[str], Optional[str]] = shutil.which,
) -> list:
    if platform == "darwin":
        return ["pbcopy"]
    if env.get("WAYLAND_DISPLAY") and which("wl-copy"):
        return ["wl-copy"]
    if env.get("DISPLAY") and which("xclip"):
        return ["xclip", "-selection", "clipboard"]
    raise AppError(
        "copying needs a clipboard tool: wl-copy on Wayland (apt install wl-clipboard) or "
        "xclip on X11 (apt install xclip), with $WAYLAND_DISPLAY or $DISPLAY set"
    )


def type_command(
    platform: str = sys.platform,
    env: Mapping[str, str] = os.environ,
    which: Callable[[str], Optional[str]] = shutil.which,
) -> list:
    """The argv that types text given as its last argument (appended per call)."""
    if platform == "darwin":
        return MAC_KEYSTROKE
    if env.get("DISPLAY") and which("xdotool"):
        return ["xdotool", "type", "--clearmodifiers", "--"]
    raise AppError(
        "--type needs xdotool and an X11 display (apt install xdotool; $DISPLAY set) or macOS; "
        "on Wayland use --copy instead"
    )


class Delivery:
    """Each committed utterance to the clipboard and/or typed; the whole transcript on request."""

    def __init__(
        self,
        copy: Optional[str],
        type_text: bool,
        say: Callable[[str], None],
        runner: Runner = run_command,
        platform: str = sys.platform,
        env: Mapping[str, str] = os.environ,
        which=shutil.which,
    ) -> None:
        self.copy_mode, self.say, self.runner = copy, say, runner
        self._copy, self._copy_error = None, ""
        try:
            self._copy = copy_command(platform, env, which)
        except AppError as e:
            if copy:
                raise
            self._copy_error = str(e)  # the c key says why, when pressed
        self._type = type_command(platform, env, which) if type_text else None
        self._failed: set[str] = set()
        self._typed_any = False
        self._jobs: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._work, name="deliver", daemon=True)
        self._thread.start()

    def commit(self, text: str) -> None:
        if self.copy_mode == "each":
            self._jobs.put(("clipboard", self._copy, text))
        if self._type is not None:
            self._jobs.put(("typing", self._type + [(" " if self._typed_any else "") + text], ""))
            self._typed_any = True

    def copy_all(self, transcript: str) -> None:
        """The whole transcript to the clipboard (the c key, or --copy exit at the end)."""
        if self._copy is None:
            self.say(self._copy_error)
        else:
            self._jobs.put(("transcript", self._copy, transcript))

    def close(self) -> None:
        """Wait until everything asked for was copied or typed."""
        self._jobs.put(None)
        self._thread.join()

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            what, argv, text = job
            if self._run(what, argv, text) and what == "transcript":
                self.say(f"transcript copied to the clipboard ({len(text.split())} words)")

    def _run(self, what: str, argv: list, text: str) -> bool:
        try:
            status = self.runner(argv, text)
        except (OSError, subprocess.TimeoutExpired) as e:
            status, why = -1, str(e)
        else:
            why = f"exit status {status}"
        if status == 0:
            return True
        if what not in self._failed:
            self._failed.add(what)
            self.say(
                f"{'clipboard' if what == 'transcript' else what} failed ({argv[0]}: {why}); "
                "the text is still in the transcript"
            )
        return False
