"""One dictation session, in start-up order:

    model loaded -> engine warmed up (one short decode) -> outputs opened -> decode thread started
    -> input opened (microphone or --input file) -> watch: device loss, silent microphone, status
    -> Ctrl-C (or end of file): stop capture, decode everything captured, commit, summary, exit 0
       a second Ctrl-C exits at once (everything committed so far is already on disk)
"""

import argparse
import os
import signal
import sys
import time
from typing import Callable, Union

from .capture import MicSource
from .display import LiveDisplay, PlainDisplay, StageBars
from .engine import make_engine
from .errors import AppError
from .model_setup import load_model
from .pipeline import Commit, Pipeline
from .replay import FileSource
from .segmenter import Segmenter
from .stats import SessionStats
from .transcript import open_outputs
from .worker import Worker, make_queue

SILENT_AFTER = 5.0
SILENT_MESSAGE = "microphone silent for 5 s — check the device or permission"
WATCH_EVERY = 0.1


def exit_at_once() -> None:
    if sys.stdout.isatty():
        sys.stdout.write("\x1b[?25h\n")  # rich Live hid the cursor
        sys.stdout.flush()
    os._exit(130)  # committed text is already fsynced; skip finishing and cleanup


class StopSignals:
    """SIGINT/SIGTERM handler: the first stops gracefully (KeyboardInterrupt), the next exits at once.

    One handler for the whole session, so a second Ctrl-C arriving while the first is being handled
    can never be lost or turned into a traceback.
    """

    def __init__(self, exit_now: Callable[[], None] = exit_at_once) -> None:
        self.exit_now = exit_now
        self.stopping = False

    def __call__(self, signum=None, frame=None) -> None:
        if self.stopping:
            self.exit_now()
            return
        self.stopping = True
        raise KeyboardInterrupt

    def install(self) -> None:
        signal.signal(signal.SIGINT, self)
        signal.signal(signal.SIGTERM, self)


def _say(display: Union[LiveDisplay, PlainDisplay]) -> Callable[[str], None]:
    return display.message if isinstance(display, PlainDisplay) else display.console.print


def run(args: argparse.Namespace) -> int:
    stats = SessionStats()
    display = LiveDisplay(stats) if sys.stdout.isatty() else PlainDisplay()
    say = _say(display)
    bars = StageBars(display.console) if isinstance(display, LiveDisplay) else None
    try:
        model = load_model(args.model, args.dtype, say, convert=not args.no_convert, progress=bars)
    finally:
        if bars is not None:
            bars.close()
    engine = make_engine(model, "offline" if args.partials == "off" else args.partials, args.decode_options)
    engine.warm_up()
    aligner = load_model(args.aligner, args.dtype, say, convert=not args.no_convert) if args.aligner else None
    writers = open_outputs(args.output, args.timestamps, args.save_audio, display.message, aligner)

    def on_commit(commit: Commit) -> None:
        for writer in writers:  # on disk before it is on screen
            writer.write(commit)
        display.commit(commit.text)
        if commit.lost_seconds:
            display.message(f"{commit.lost_seconds:.1f} s of audio lost (the process stalled or the input "
                            "overflowed): the utterance before it ends there; the gap is marked in the transcript")

    pipeline = Pipeline(engine, on_commit, display.tentative, Segmenter(args.pause, args.max_utterance),
                        refresh_every=None if args.partials == "off" else args.refresh, stats=stats)
    blocks = make_queue()
    source = FileSource(args.input, blocks, args.fast) if args.input else MicSource(blocks, args.device)
    worker = Worker(blocks, pipeline)
    StopSignals().install()
    with display:
        source.start()
        pipeline.begin()
        worker.start()
        say(f"listening: {source.describe} — Ctrl-C to stop")
        _watch(source, worker, pipeline, display, live_input=not args.input)
    for writer in writers:
        writer.close()
    if not worker.finished.is_set():
        raise AppError("decoding stopped with an error (see above); what was committed is kept")
    display.summary(pipeline.stats.summary())
    return 0


def _watch(source, worker: Worker, pipeline: Pipeline, display, live_input: bool) -> None:
    """Until the input ends or Ctrl-C: relay device messages, overflows and the silence warning."""
    try:
        while worker.is_alive():
            time.sleep(WATCH_EVERY)
            message = source.check()
            if message:
                display.message(message)
            pipeline.stats.overflows = source.overflows
            pipeline.stats.behind_seconds = worker.backlog_seconds
            if live_input:
                quiet_since = max(pipeline.last_sound_time, source.opened_at)
                silent = time.monotonic() - quiet_since >= SILENT_AFTER
                display.warn(SILENT_MESSAGE if silent and not source.lost else "")
    except KeyboardInterrupt:
        display.message("stopping: finishing what was captured (Ctrl-C again to quit at once)")
        source.stop()
        worker.join()
        pipeline.stats.overflows = source.overflows
