"""The model worker: the one thread that owns the model. MLX is not thread-safe for one model, so
every model call (file batches, live steps, loading, warm-up) runs here.

    HTTP route --submit_files([UploadJob])--> pending request count (bounded: Busy -> 429) ─┐
    WebSocket  --call(fn)  (one step in flight per session)-------------------------------┤
                                                                         worker thread ◀──┘
        loop: the oldest live step, then up to batch_size file jobs -> transcribe_many
              (and between the batch's waves of batch_size chunks: every live step waiting)
        results -> concurrent futures, awaited by the asyncio side (asyncio.wrap_future)

Alternating keeps both kinds moving: a stream of live steps cannot starve files, and a live step
waits for at most one wave of file chunks, not for a whole batch of long files. A client that goes
away cancels its futures; cancelled jobs are skipped, never decoded, and a live step already running
stops at its next token (interrupt.py), so a client that leaves frees the worker at once.
"""

import collections
import logging
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Optional, TypeVar

import mlx.core as mx

from mlx_qwen3asr.runtime.interrupt import Interrupted, interruptible

from .transcription import ServedModels, UploadJob, transcribe_many

T = TypeVar("T")
COUNTS = ("decoded", "batches", "dropped", "failed", "live_steps", "dropped_live_steps")  # in /health
log = logging.getLogger("mlx_qwen3asr.server")


class Busy(Exception):
    """The queue is full; `retry_after` estimates the seconds until it has room."""

    def __init__(self, retry_after: int):
        super().__init__(f"the server has too many requests waiting; retry in {retry_after} s")
        self.retry_after = retry_after


class StepFuture(Future):
    """A live step's future: cancelling it while it runs marks it abandoned (the step then stops)."""

    abandoned = False

    def cancel(self) -> bool:
        self.abandoned = True
        return super().cancel()


class ModelWorker:
    def __init__(
        self,
        load: Callable[[], ServedModels],
        *,
        batch_size: int = 4,
        max_queue: int = 64,
    ):
        """load: makes (and warms) the models on the worker thread (tests: a fake model in them).
        max_queue: requests admitted and not yet answered; more get Busy."""
        self.batch_size, self.max_queue = batch_size, max_queue
        self._load = load
        self._wake = threading.Condition()
        self._files: collections.deque[tuple[UploadJob, Future]] = collections.deque()
        self._live: collections.deque[tuple[Callable, Future]] = collections.deque()
        self._open_requests, self._stopping = 0, False
        self._seconds_per_job = 1.0  # running average, for Retry-After
        self.counts = collections.Counter(dict.fromkeys(COUNTS, 0))
        self.models: Optional[ServedModels] = None
        self._thread = threading.Thread(target=self._run, name="model-worker", daemon=True)
        self._ready: Future = Future()

    def start(self) -> None:
        """Start the thread; returns once the model is loaded and warm (re-raises a load error)."""
        self._thread.start()
        self._ready.result()

    def stop(self, timeout: float = 10.0) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify()
        self._thread.join(timeout)

    def submit_files(self, jobs: list[UploadJob]) -> list[Future]:
        """Queue the jobs of ONE request (a streamed file has several); futures of Transcription."""
        with self._wake:
            if self._open_requests >= self.max_queue:
                waiting = len(self._files) + self.batch_size
                raise Busy(max(1, math.ceil(self._seconds_per_job * waiting / self.batch_size)))
            self._open_requests += 1
            futures = [Future() for _ in jobs]
            self._files.extend(zip(jobs, futures))
            self._wake.notify()
        remaining = [len(futures)]

        def closed(_: Future) -> None:  # the request leaves the queue when all its jobs are done
            with self._wake:
                remaining[0] -= 1
                self._open_requests -= remaining[0] == 0

        for future in futures:
            future.add_done_callback(closed)
        return futures

    def call(self, step: Callable[[ServedModels], T]) -> "Future[T]":
        """Run step(models) on the worker thread before the next file batch or wave (live sessions)."""
        future = StepFuture()
        with self._wake:
            self._live.append((step, future))
            self._wake.notify()
        return future

    def stats(self) -> dict:
        with self._wake:
            queued = {"queued_jobs": len(self._files), "open_requests": self._open_requests,
                      "live_steps_waiting": len(self._live)}  # fmt: skip
        if self.models is not None:  # the prompt heads kept by context
            queued["prefix_cache"] = self.models.prefixes.stats()
        return {**queued, **self.counts}

    def _run(self) -> None:
        try:
            self.models = self._load()
        except BaseException as e:  # noqa: BLE001 - handed to start(), which re-raises it
            self._ready.set_exception(e)
            return
        self._ready.set_result(None)
        try:
            while self._serve_once():
                pass
        finally:
            mx.clear_streams()  # MLX 0.32 needs each thread that used it to release its streams

    def _serve_once(self) -> bool:
        with self._wake:
            while not (self._files or self._live or self._stopping):
                self._wake.wait()
            if self._stopping:
                return False
            live = self._live.popleft() if self._live else None
            batch = self._take_batch()
        if live is not None:
            self._run_live(*live)
        if batch:
            self._run_batch(batch)
        return True

    def _take_batch(self) -> list[tuple[UploadJob, Future]]:
        batch = []
        while self._files and len(batch) < self.batch_size:
            job, future = self._files.popleft()
            if future.set_running_or_notify_cancel():
                batch.append((job, future))
            else:
                self.counts["dropped"] += 1  # under the lock, like every count
        return batch

    def _run_live(self, step: Callable, future: Future) -> None:
        if not future.set_running_or_notify_cancel():
            self._count("dropped_live_steps")
            return
        try:
            with interruptible(lambda: future.abandoned):
                future.set_result(step(self.models))
            self._count("live_steps")
        except Interrupted as e:  # its client left while it ran
            self._count("dropped_live_steps")
            future.set_exception(e)
        except Exception as e:  # noqa: BLE001 - not swallowed: the session awaiting it gets it
            log.exception("live step failed")
            future.set_exception(e)

    def _live_turn(self) -> None:
        """Between two waves of a file batch: the live steps waiting now (one per session at most)."""
        with self._wake:
            waiting = list(self._live)
            self._live.clear()
        for step, future in waiting:
            self._run_live(step, future)

    def _run_batch(self, batch: list[tuple[UploadJob, Future]]) -> None:
        start = time.perf_counter()
        try:
            results = transcribe_many(self.models, [job for job, _ in batch], self.batch_size, self._live_turn)
        except Exception as e:  # noqa: BLE001 - not swallowed: every request in the batch gets it
            log.exception("transcription failed")
            self._count("failed", len(batch))
            for _, future in batch:
                future.set_exception(e)
            return
        for (_, future), result in zip(batch, results):
            future.set_result(result)
        per_job = (time.perf_counter() - start) / len(batch)
        self._seconds_per_job = 0.8 * self._seconds_per_job + 0.2 * per_job
        self._count("decoded", len(batch))
        self._count("batches")
        mx.clear_cache()

    def _count(self, key: str, n: int = 1) -> None:
        with self._wake:
            self.counts[key] += n
