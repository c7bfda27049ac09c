"""Keys while the app runs on a terminal: p pauses/resumes listening, c copies the transcript.

The terminal is put in cbreak mode (keys arrive one by one, Ctrl-C still interrupts) for the
session and restored after; a daemon thread reads stdin and calls the key's action.
"""

import os
import sys
import termios
import threading
import tty
from collections.abc import Callable

HELP = "keys: p pause/resume · c copy transcript · Ctrl-C stop"


class KeyReader:
    def __init__(self, actions: dict[str, Callable[[], None]], fd: int | None = None) -> None:
        self.actions = actions
        self.fd = sys.stdin.fileno() if fd is None else fd
        self._saved = None

    def __enter__(self) -> "KeyReader":
        self._saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)
        threading.Thread(target=self._read, name="keys", daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 1)
            except OSError:
                return
            if not data:
                return
            action = self.actions.get(data.decode("latin-1").lower())
            if action is not None:
                action()
