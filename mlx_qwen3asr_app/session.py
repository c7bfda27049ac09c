"""One dictation session, in start-up order:

    flags checked: --output / --save-audio opened, --input read or the microphone found, clipboard
    and typing tools found (a wrong flag fails in a second, before the model loads)
    -> stage "loading model" (download and conversion show their own progress) -> "warming up"
    -> decode thread started -> input opened -> watch: device loss, silent microphone, status
    -> Ctrl-C (or end of file): stop capture, decode everything captured, commit, summary, exit 0
       a second Ctrl-C exits at once (everything committed so far is already on disk)

The transcription itself is mlx_qwen3asr.LiveSession; this module wires its events to files,
screen and desktop (sink.py), and the keys (p pause/resume, c copy) to the worker and clipboard.
"""

import argparse
import os
import signal
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Optional, Union

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.warm_up import warm_up
from mlx_qwen3asr.families.registry import require_task
from mlx_qwen3asr.streaming import LiveSession

from .capture import MicSource, native_stderr_to
from .display import LiveDisplay, PlainDisplay, StageBars
from .errors import AppError
from .keys import HELP, KeyReader
from .model_setup import load_model
from .outputs import Delivery
from .replay import FileSource
from .sink import EventSink
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
    tty = sys.stdout.isatty() and args.events != "jsonl"
    display = LiveDisplay(stats) if tty else PlainDisplay()
    say = _say(display)
    writers = open_outputs(args.output, args.timestamps, args.save_audio, display.message)
    blocks = make_queue()
    source = FileSource(args.input, blocks, args.fast) if args.input else MicSource(blocks, args.device)
    if not args.input:
        source.check_device()
    delivery = Delivery(args.copy, args.type, say)
    live, aligner = _load(args, display, say, stats)
    sink = EventSink(writers, display, delivery, jsonl=args.events == "jsonl", aligner=aligner)
    worker = Worker(blocks, live, sink)
    StopSignals().install()
    with ExitStack() as stack:
        stack.enter_context(display)
        if not args.input:
            stack.enter_context(native_stderr_to())
        if tty and sys.stdin.isatty():
            stack.enter_context(
                KeyReader(
                    {"p": lambda: _toggle_pause(worker, stats, display), "c": lambda: delivery.copy_all(sink.text())}
                )
            )
            display.message(HELP)
        source.start()
        stats.started = live.last_sound_time = time.monotonic()
        worker.start()
        say(f"listening: {source.describe} — Ctrl-C to stop")
        _watch(source, worker, live, display, live_input=not args.input)
    for writer in writers:
        writer.close()
    if not worker.finished.is_set():
        raise AppError("decoding stopped with an error (see above); what was committed is kept")
    if args.copy == "exit":
        delivery.copy_all(sink.text())
    delivery.close()
    display.summary(stats.summary())
    return 0


def _load(
    args: argparse.Namespace, display, say: Callable[[str], None], stats: SessionStats
) -> tuple[LiveSession, Optional["mq.ForcedAligner"]]:
    """The model (the partials model, the aligner) loaded and warmed up, each stage named as it starts."""
    stages = 2 + bool(args.aligner) + bool(args.partials_model)
    say(f"[1/{stages}] loading model {args.model}")
    model = _loaded(args.model, "transcribe", "--model", args, display, say)
    first = None
    if args.partials_model:
        say(f"[2/{stages}] loading partials model {args.partials_model}")
        first = _loaded(args.partials_model, "transcribe", "--partials-model", args, display, say)
    try:  # the options (LiveSession checks them, once)
        live = LiveSession(
            model,
            args.decode_options,
            pause=args.pause,
            max_utterance=args.max_utterance,
            partials=args.partials,
            partials_model=first,
            refresh_every=args.refresh,
            channels_last=True,
            stats=stats,
            vad=mq.vad_by_name(args.vad),
        )
    except ValueError as e:  # a language not in its family's list, a context over the model's limit
        raise AppError(str(e)) from e
    aligner = None
    if args.aligner:
        say(f"[{stages - 1}/{stages}] loading aligner {args.aligner}")
        aligner = _loaded(args.aligner, "align", "--aligner", args, display, say, convert=False)
    say(f"[{stages}/{stages}] warming up: preparing the shapes dictation uses (a short and a 30 s clip, live steps)")
    warm_up(model)  # MLX builds a kernel per new shape: the first utterance must not wait for that
    live.warm_up()
    return live, aligner


def _loaded(name: str, task: str, flag: str, args, display, say, convert: bool = True) -> "mq.Recogniser":
    """The model `name` for `task` (an aligner as --model is refused in one line), with download bars."""
    bars = StageBars(display.console) if isinstance(display, LiveDisplay) and convert else None
    try:
        model = load_model(name, args.dtype, say, convert=convert and not args.no_convert, progress=bars)
    finally:
        if bars is not None:
            bars.close()
    try:
        require_task(model, task, f"{flag} {name}")
    except ValueError as e:
        raise AppError(str(e)) from e
    return model


def _toggle_pause(worker: Worker, stats: SessionStats, display) -> None:
    if worker.paused.is_set():
        worker.paused.clear()
        display.message("listening again")
    else:
        worker.paused.set()
        display.message("paused: nothing is transcribed until you press p again")
    stats.paused = worker.paused.is_set()


def _watch(source, worker: Worker, live: LiveSession, display, live_input: bool) -> None:
    """Until the input ends or Ctrl-C: relay device messages, overflows and the silence warning."""
    stats = live.stats
    try:
        while worker.is_alive():
            time.sleep(WATCH_EVERY)
            message = source.check()
            if message:
                display.message(message)
            stats.overflows = source.overflows
            stats.behind_seconds = worker.backlog_seconds
            if live_input:
                quiet_since = max(live.last_sound_time, source.opened_at)
                silent = time.monotonic() - quiet_since >= SILENT_AFTER and not worker.paused.is_set()
                display.warn(SILENT_MESSAGE if silent and not source.lost else "")
    except KeyboardInterrupt:
        display.message("stopping: finishing what was captured (Ctrl-C again to quit at once)")
        source.stop()
        worker.join()
        stats.overflows = source.overflows
