"""`--input FILE`: a file played into the same queue as the microphone, as if it were one.

    file -> mq.prepare_audio (16 kHz mono) -> 30 ms Blocks -> queue   (a thread of its own)

At real-time pace each block is released when its last sample "would have been captured", and
stamped with that time, so latencies mean the same as live. With `fast` the blocks go in as quickly
as the worker takes them (the bounded queue is the only pacing) and are stamped when queued.
"""

import queue
import threading
import time
from collections.abc import Callable

import mlx_qwen3asr as mq

from .capture import BLOCK_SECONDS, Block, Marker
from .errors import AppError

RATE = 16000


class FileSource:
    def __init__(
        self,
        path: str,
        blocks: queue.Queue,
        fast: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        try:
            self._audio = mq.prepare_audio(path)
        except (OSError, ValueError) as e:
            raise AppError(f"Cannot read --input {path}: {e}") from e
        self.blocks = blocks
        self.fast = fast
        self.clock = clock
        self.sleep = sleep
        self.overflows = 0  # a file never overflows; here so both sources look alike
        self.lost = False
        self.opened_at = 0.0  # when replay began: sample i is "captured" at opened_at + (i + 1) / RATE
        self.describe = f"{path} ({len(self._audio) / RATE:.1f} s{', fast' if fast else ''})"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="replay", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def check(self) -> None:
        return None

    def stop(self) -> None:
        """Stop replaying; blocks already queued are still transcribed, then END."""
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        step = round(BLOCK_SECONDS * RATE)
        started = self.opened_at = self.clock()
        for begin in range(0, len(self._audio), step):
            if self._stop.is_set():
                break
            chunk = self._audio[begin : begin + step, None]
            if self.fast:
                stamp = self.clock()
            else:
                stamp = started + (begin + len(chunk)) / RATE
                self.sleep(max(0.0, stamp - self.clock()))
            self._put(Block(chunk, RATE, stamp))
        self.blocks.put(Marker.END)

    def _put(self, block: Block) -> None:
        while not self._stop.is_set():
            try:
                self.blocks.put(block, timeout=0.1)
                return
            except queue.Full:
                continue
