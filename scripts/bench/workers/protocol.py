"""One side of a benchmark as a long-lived worker process: loaded once, one measurement per request.

    driver: Worker(label, command, env, cwd) -> starts `command` (a worker module calling serve(side))
      -> worker.ready: what the side says about itself once loaded (dtypes, prompt tokens, BLAS ...)
      -> worker.measure({"stage": "encoder", "seconds": 10}) -> {"seconds": 0.93, "cpu_seconds": 1.8,
         "rss_peak_mb": 3900, ...}   (one JSON line each way over the worker's stdin / a private pipe)
    worker: serve(side) -> calls side.<stage>(**arguments) per request, adds its CPU time and peak RSS

Both sides' workers import this file, so it needs only the standard library: the official side runs
in its own torch environment. Replies travel on a duplicate of the original stdout while
sys.stdout points at stderr, so a library that prints cannot corrupt them.
"""

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

PROMPT_SECONDS = 10.0  # the clip whose prompt both sides prefill and decode after


def rss_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def serve(side, ready: dict) -> None:
    """Answer measurement requests on stdin until it closes; `ready` is sent first."""
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    sys.stdout = sys.stderr
    replies.write(json.dumps(ready) + "\n")
    replies.flush()
    for line in sys.stdin:
        request = json.loads(line)
        stage = request.pop("stage")
        cpu = time.process_time()
        result = getattr(side, stage)(**request)
        result.update(cpu_seconds=time.process_time() - cpu, rss_peak_mb=rss_peak_mb())
        replies.write(json.dumps(result) + "\n")
        replies.flush()


class Worker:
    """The driver's handle on one side's process."""

    def __init__(self, label: str, command: list[str], env: Optional[dict] = None, cwd: Optional[Path] = None):
        self.label = label
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=cwd
        )
        self.ready = self._reply()

    def _reply(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait(timeout=30)
            raise RuntimeError(f"benchmark side {self.label!r} exited with {code} (its stderr is above)")
        return json.loads(line)

    def measure(self, request: dict) -> dict:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._reply()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
