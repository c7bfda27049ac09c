"""A progress bar on stderr (rich, imported only when shown): the CLI's over seconds of audio (transcribed,
then diarized with --diarize), transcribe_files' over files. Off a terminal it is a no-op callback."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(total: float, show: bool, unit: str = "s of audio") -> Iterator[Callable[[float], None]]:
    """A rich progress bar on stderr over `total` units (a no-op callback when not shown)."""
    if not show:
        yield lambda amount: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (
        TextColumn("transcribing"),
        BarColumn(),
        TextColumn("{task.completed:.0f}/{task.total:.0f} " + unit),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task("transcribing", total=total)
        yield lambda amount: progress.advance(task, amount)
