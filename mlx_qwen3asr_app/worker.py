"""The decoding thread: queue -> live session -> events, until the END marker.

    source (mic callback / file replay) --Block--> bounded queue --> Worker thread
        Block  -> LiveSession.feed (16 kHz mono; may commit finished utterances; a partial only
                  when the queue is drained, so partials never delay a commit)
        queue drained -> LiveSession.refresh (a partial, when due)
        GAP    -> LiveSession.flush (device lost: finalise what is open)
        Gap(s) -> LiveSession.gap (s seconds lost: finalise, report the gap; later times count them)
        END    -> LiveSession.flush, thread ends
    every event -> on_event (files, display, clipboard: see session.py)

Everything captured before END is transcribed: stopping the source never empties the queue.
While `paused` is set, blocks are dropped (the open utterance was committed when it was set).
"""

import queue
import threading
from collections.abc import Callable

import mlx.core as mx

from mlx_qwen3asr.streaming import Event, LiveSession

from .capture import BLOCK_SECONDS, Block, Gap, Marker

QUEUE_SECONDS = 120  # the bound on captured-but-not-yet-decoded audio
QUEUE_BLOCKS = int(QUEUE_SECONDS / BLOCK_SECONDS)
IDLE_POLL = 0.05


def make_queue() -> queue.Queue:
    return queue.Queue(maxsize=QUEUE_BLOCKS)


class Worker:
    def __init__(self, blocks: queue.Queue, live: LiveSession, on_event: Callable[[Event], None]) -> None:
        self.blocks = blocks
        self.live = live
        self.on_event = on_event
        self.paused = threading.Event()
        self.finished = threading.Event()  # set only when END was reached and everything committed
        self._flushed_pause = False
        self._thread = threading.Thread(target=self._run, name="decode", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def backlog_seconds(self) -> float:
        """Audio captured but not decoded yet: how far decoding is behind the input."""
        return self.blocks.qsize() * BLOCK_SECONDS

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            self._decode_until_end()
        finally:
            mx.clear_streams()  # MLX 0.32 needs each thread that used it to release its streams

    def _emit(self, events: list[Event]) -> None:
        for event in events:
            self.on_event(event)

    def _decode_until_end(self) -> None:
        while True:
            try:
                item = self.blocks.get(timeout=IDLE_POLL)
            except queue.Empty:
                self._emit(self.live.refresh() if not self.paused.is_set() else [])
                continue
            if isinstance(item, Block):
                if self._skip_paused():
                    continue
                self._emit(self.live.feed(item.samples, item.time, item.rate, partial=self.blocks.empty()))
                continue
            if isinstance(item, Gap):
                self._emit(self.live.gap(item.seconds))
                continue
            self._emit(self.live.flush())
            if item is Marker.END:
                self.finished.set()
                return

    def _skip_paused(self) -> bool:
        """While paused: commit what was open once, then drop the blocks."""
        if not self.paused.is_set():
            self._flushed_pause = False
            return False
        if not self._flushed_pause:
            self._emit(self.live.flush())
            self._flushed_pause = True
        return True
