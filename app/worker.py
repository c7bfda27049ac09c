"""The decoding thread: queue -> 16 kHz mono -> pipeline, until the END marker.

    source (mic callback / file replay) --Block--> bounded queue --> Worker thread
        Block  -> SampleStream (16 kHz mono) -> Pipeline.push  (may commit finished utterances)
        queue drained                       -> Pipeline.refresh (a partial, when due)
        GAP    -> resampler tail, Pipeline.flush (device lost: finalise what is open)
        Gap(s) -> resampler tail, Pipeline.gap (s seconds lost: finalise, mark the gap in the transcript)
        END    -> resampler tail, Pipeline.flush, thread ends

Everything captured before END is transcribed: stopping the source never empties the queue.
"""

import queue
import threading

import mlx.core as mx

import mlx_qwen3asr as mq

from .capture import BLOCK_SECONDS, Block, Gap, Marker
from .pipeline import Pipeline

QUEUE_SECONDS = 120  # the bound on captured-but-not-yet-decoded audio
QUEUE_BLOCKS = int(QUEUE_SECONDS / BLOCK_SECONDS)
IDLE_POLL = 0.05


def make_queue() -> queue.Queue:
    return queue.Queue(maxsize=QUEUE_BLOCKS)


class Worker:
    def __init__(self, blocks: queue.Queue, pipeline: Pipeline) -> None:
        self.blocks = blocks
        self.pipeline = pipeline
        self.conditioner = mq.SampleStream(channels_last=True)  # 16 kHz mono, seamless resampling
        self.finished = threading.Event()  # set only when END was reached and everything committed
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

    def _decode_until_end(self) -> None:
        while True:
            try:
                item = self.blocks.get(timeout=IDLE_POLL)
            except queue.Empty:
                self.pipeline.refresh()
                continue
            if isinstance(item, Block):
                self.pipeline.push(self.conditioner.convert(item.samples, item.rate), item.time)
                if self.blocks.empty():
                    self.pipeline.refresh()
                continue
            tail = self.conditioner.flush()
            if len(tail):
                self.pipeline.push(tail, self.pipeline.clock())
            if isinstance(item, Gap):
                self.pipeline.gap(item.seconds)
                continue
            self.pipeline.flush()
            if item is Marker.END:
                self.finished.set()
                return
