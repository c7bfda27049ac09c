"""What the user sees: rich Live on a terminal, plain committed lines anywhere else.

On a terminal, committed utterances are printed above the live region (normal style) and scroll
like any terminal output; the live region holds only the open utterance's tentative text (dimmed,
redrawn in place) and one status line:

    ● ▮▮▮▮▮▯▯▯▯▯▯▯ -31 dB │ English │ last 0.84 s │ RTF 0.21 │ overflows 0 │ 01:23 │ behind 3.2 s

(‖ paused, ● speaking / ○ listening, input level from -60 to 0 dBFS, detected language, speech end
-> text on screen for the last commit, real-time factor, lost input, elapsed time; "behind" only
when more than BEHIND_SHOWN seconds of captured audio wait to be decoded.)
When stdout is not a terminal only committed text goes there, one utterance per line, no ANSI
codes; messages and the summary go to stderr.
"""

import sys
import threading
import time
from collections.abc import Callable
from typing import Optional, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
from rich.text import Text

from .stats import SessionStats, format_clock

METER_CELLS = 12
METER_LOW_DB = -60.0
BEHIND_SHOWN = 1.0  # a backlog above this is more than one utterance's decode: the user should know


def level_meter(db: float) -> str:
    filled = round(min(max((db - METER_LOW_DB) / -METER_LOW_DB, 0.0), 1.0) * METER_CELLS)
    return "▮" * filled + "▯" * (METER_CELLS - filled)


def status_line(stats: SessionStats, now: float, warning: str = "") -> Text:
    latency = f"{stats.last_latency:.2f} s" if stats.last_latency is not None else "–"
    text = Text()
    if stats.paused:
        text.append("‖ paused ", style="bold yellow")
    text.append("● " if stats.speaking else "○ ", style="bold red" if stats.speaking else "green")
    text.append(f"{level_meter(stats.level_db)} {max(stats.level_db, -99):3.0f} dB", style="cyan")
    text.append(f" │ {stats.language or 'language ?'} │ last {latency} │ RTF {stats.rtf:.2f} │ ")
    text.append(f"overflows {stats.overflows}", style="bold red" if stats.overflows else "")
    text.append(f" │ {format_clock(now - stats.started)}")
    if stats.behind_seconds > BEHIND_SHOWN:
        text.append(f" │ behind {stats.behind_seconds:.1f} s", style="bold red")
    if warning:
        text.append(f"\n{warning}", style="bold yellow")
    return text


class PlainDisplay:
    """Pipe or file: committed lines on stdout, everything else on stderr."""

    def __init__(self, out: TextIO = sys.stdout, err: Optional[TextIO] = None) -> None:
        self.out, self._err = out, err
        self.warning = ""

    @property
    def err(self) -> TextIO:
        return self._err or sys.stderr  # looked up each time: capture.native_stderr_to swaps it

    def __enter__(self) -> "PlainDisplay":
        return self

    def __exit__(self, *exc) -> None:
        return None

    def commit(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def tentative(self, text: str) -> None:
        return None

    def message(self, text: str) -> None:
        print(text, file=self.err, flush=True)

    def warn(self, text: str) -> None:
        """A condition that lasts (silent microphone): said once, when it starts."""
        if text and text != self.warning:
            self.message(text)
        self.warning = text

    def summary(self, text: str) -> None:
        self.message(text)


class LiveDisplay:
    """A terminal: rich Live region with the tentative text and the status line."""

    def __init__(
        self, stats: SessionStats, console: Optional[Console] = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.console = console or Console()
        self.stats = stats
        self.clock = clock
        self.warning = ""
        self._tentative = ""
        self._lock = threading.Lock()
        self._live = Live(
            console=self.console,
            get_renderable=self._render,
            refresh_per_second=8,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )

    def __enter__(self) -> "LiveDisplay":
        self._live.start()
        return self

    def __exit__(self, *exc) -> None:
        self._live.stop()

    def _render(self) -> Group:
        with self._lock:
            tentative = self._tentative
        return Group(Text(tentative, style="dim"), status_line(self.stats, self.clock(), self.warning))

    def commit(self, text: str) -> None:
        with self._lock:
            self._tentative = ""
        self._live.console.print(Text(text), soft_wrap=False)

    def tentative(self, text: str) -> None:
        with self._lock:
            self._tentative = text

    def message(self, text: str) -> None:
        self._live.console.print(Text(text, style="yellow"))

    def warn(self, text: str) -> None:
        self.warning = text

    def summary(self, text: str) -> None:
        self.console.print(Text(text, style="bold"))


class StageBars:
    """The model converter's progress (read / quantize / write, in bytes) as rich bars."""

    def __init__(self, console: Console) -> None:
        self._bars = Progress(
            TextColumn("{task.description:>9}"), BarColumn(), DownloadColumn(), console=console, transient=True
        )
        self._tasks: dict = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage not in self._tasks:
            if not self._tasks:
                self._bars.start()
            self._tasks[stage] = self._bars.add_task(stage, total=total)
        self._bars.update(self._tasks[stage], advance=done, total=total)

    def close(self) -> None:
        if self._tasks:
            self._bars.stop()
