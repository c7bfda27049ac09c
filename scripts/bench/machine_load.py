"""The machine's load around each measurement, and a fixed background load for --busy runs.

    LoadProbe.start() ... LoadProbe.stop(worker_cpu_seconds)
      -> {"load1": 1-min load average at the end, "busy": share of all cores busy (/proc/stat),
          "others": that share minus the measured process's own CPU time}
    BackgroundLoad(workers=2, duty=0.75): each worker burns the CPU for duty x 100 ms, then sleeps
      for the rest of the 100 ms, with a fixed single-threaded numpy loop; started and stopped around
      the measurements of a --busy run

"others" is what the benchmark cannot control: 0.0 on a quiet machine, ~0.75 under the default
--busy load on 2 cores when nothing else runs. Needs only numpy: both sides' environments import it.
"""

import multiprocessing
import os
import time
from dataclasses import dataclass

import numpy as np

PERIOD_S = 0.1  # one burn + sleep cycle of a background worker
QUIET_OTHERS = 0.10  # a measurement is "quiet" when other processes kept under 10% of the cores busy


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies over all cores since boot; (0, 0) where /proc/stat does not exist."""
    try:
        fields = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    except OSError:
        return 0, 0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


@dataclass
class LoadProbe:
    """CPU share of the whole machine during one measurement."""

    _ticks: tuple[int, int] = (0, 0)
    _wall: float = 0.0

    def start(self) -> None:
        self._ticks, self._wall = cpu_ticks(), time.perf_counter()

    def stop(self, own_cpu_seconds: float) -> dict:
        busy0, total0 = self._ticks
        busy1, total1 = cpu_ticks()
        wall = time.perf_counter() - self._wall
        busy = (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0
        own = own_cpu_seconds / (wall * (os.cpu_count() or 1))
        return {"load1": os.getloadavg()[0], "busy": round(busy, 3), "others": round(max(0.0, busy - own), 3)}


def _burn(duty: float, stop) -> None:
    """One background worker: duty x PERIOD_S of numpy work, then sleep, until `stop` is set."""
    x = np.linspace(0.0, 1.0, 20_000)
    while not stop.is_set():
        start = time.perf_counter()
        while time.perf_counter() - start < duty * PERIOD_S:
            np.sin(x, out=x)
        time.sleep(max(0.0, PERIOD_S - (time.perf_counter() - start)))


class BackgroundLoad:
    """Context manager: `workers` processes burning `duty` of one core each (none when workers == 0)."""

    def __init__(self, workers: int, duty: float):
        self.workers, self.duty = workers, duty
        self._stop = None  # a multiprocessing Event, set to stop the workers
        self._procs: list[multiprocessing.Process] = []

    def __enter__(self) -> "BackgroundLoad":
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._procs = [
            context.Process(target=_burn, args=(self.duty, self._stop), daemon=True) for _ in range(self.workers)
        ]
        for proc in self._procs:
            proc.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._stop is not None:
            self._stop.set()
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()

    def describe(self) -> str:
        if not self.workers:
            return "none"
        return f"{self.workers} processes x {self.duty:.0%} of a core (numpy loop, {PERIOD_S * 1000:.0f} ms cycle)"
