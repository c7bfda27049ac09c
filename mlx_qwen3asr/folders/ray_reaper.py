"""A local Ray cluster that this process started dies with it, even when this process is killed -9.

    driver: ray.init() started gcs_server, raylet, the dashboard and their agents as its descendants
      -> Reaper: a child `python ray_reaper.py` in a session of its own, its stdin a pipe from the driver
      -> the driver writes "pid<TAB>command" for each of its descendants (again after the workers start)
    the driver exits or is killed -> the pipe's write end closes -> the reaper reads EOF
      -> SIGTERM to each listed process still running the same command, SIGKILL after GRACE_SECONDS

Ray fate-shares gcs_server and raylet with the driver, but its dashboard and runtime-env agents
(~170 MB) outlive a driver killed -9. A normal end (ray.shutdown) leaves the reaper nothing to do.
The pipe is not inherited by Ray's processes (Python's pipes are not inheritable), so only the
driver's end keeps it open. Run as a script (stdlib only): it imports neither MLX nor Ray.
"""

import os
import signal
import subprocess
import sys
import time
from typing import Optional

GRACE_SECONDS = 3.0


def process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process (`ps`: Linux and macOS)."""
    listing = subprocess.run(["ps", "-A", "-ww", "-o", "pid=,ppid=,command="], capture_output=True, text=True)
    table = {}
    for line in listing.stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit():
            table[int(parts[0])] = (int(parts[1]), parts[2])
    return table


def descendants(pid: int) -> dict[int, str]:
    """pid -> command of every process below `pid`."""
    table, found, frontier = process_table(), {}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, command) in table.items():
            if ppid == parent and child not in found:
                found[child] = command
                frontier.append(child)
    return found


class Reaper:
    """The driver's side: start() after ray.init, watch() again once the workers run, close() at the end."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-I", os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C in the terminal reaches the driver, not the reaper
            text=True,
        )
        self.watched: set[int] = set()

    @classmethod
    def start(cls) -> Optional["Reaper"]:
        """A reaper for the processes this driver started, or None when it started none (it joined a
        cluster that runs without it)."""
        if not descendants(os.getpid()):
            return None
        reaper = cls()
        reaper.watch()
        return reaper

    def watch(self) -> None:
        """Hand the reaper every descendant of this process not handed yet."""
        for pid, command in descendants(os.getpid()).items():
            if pid != self.process.pid and pid not in self.watched:
                self.watched.add(pid)
                self.process.stdin.write(f"{pid}\t{command}\n")
        self.process.stdin.flush()

    def close(self) -> None:
        """The driver is done (after ray.shutdown): the reaper ends whatever is left and exits."""
        self.process.stdin.close()
        self.process.wait(timeout=GRACE_SECONDS + 10)


def reap(watched: dict[int, str]) -> None:
    """SIGTERM, then SIGKILL, to each watched process that still runs its command (not a reused pid)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        table = process_table()
        alive = [pid for pid, command in watched.items() if table.get(pid, (0, None))[1] == command]
        for pid in alive:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        end = time.monotonic() + GRACE_SECONDS
        while alive and time.monotonic() < end:
            time.sleep(0.1)
            table = process_table()
            alive = [pid for pid in alive if table.get(pid, (0, None))[1] == watched[pid]]
        if not alive:
            return


def main() -> None:
    watched = {}
    for line in sys.stdin:  # until the driver's end of the pipe closes
        pid, _, command = line.rstrip("\n").partition("\t")
        watched[int(pid)] = command
    reap(watched)


if __name__ == "__main__":
    main()
