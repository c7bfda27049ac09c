"""Run a command with its stderr on a pseudo-terminal (as a person at a terminal sees it)."""

import os
import pty
import subprocess


def stderr_on_a_terminal(command: list, timeout: float = 300) -> tuple[subprocess.CompletedProcess, bytes]:
    """(the finished run, with stdout captured; everything it wrote to the terminal)."""
    leader, follower = pty.openpty()
    run = subprocess.run(list(map(str, command)), stdout=subprocess.PIPE, stderr=follower, timeout=timeout)
    os.close(follower)
    screen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        screen += chunk
    os.close(leader)
    return run, screen
