"""Captured blocks -> 16 kHz mono float32, on the worker thread (never in the audio callback).

    Block [n, channels] at the device rate -> mean over channels -> soxr stream resampler -> [m]

The resampler keeps state across blocks (no clicks at block edges); a change of rate or channel
count (a device reopened with other settings) flushes the old stream's tail first.
"""

from typing import Optional

import numpy as np
import soxr

from .capture import Block

RATE = 16000


class Conditioner:
    def __init__(self) -> None:
        self._stream: Optional[soxr.ResampleStream] = None
        self._rate = RATE

    def convert(self, block: Block) -> np.ndarray:
        samples = np.asarray(block.samples)
        if samples.dtype.kind in "iu":
            samples = samples.astype(np.float32) / float(2 ** (8 * samples.dtype.itemsize - 1))
        mono = samples.mean(axis=1, dtype=np.float32) if samples.ndim == 2 else samples.astype(np.float32)
        head = self.flush() if block.rate != self._rate else np.zeros(0, np.float32)
        self._rate = block.rate
        if block.rate == RATE:
            return np.concatenate([head, mono]) if len(head) else mono
        if self._stream is None:
            # "HQ" as the library's own resampler uses.
            self._stream = soxr.ResampleStream(block.rate, RATE, 1, dtype="float32", quality="HQ")
        return np.concatenate([head, self._stream.resample_chunk(mono)])

    def flush(self) -> np.ndarray:
        """The resampler's buffered tail; call at a gap or at the end of the input."""
        if self._stream is None:
            return np.zeros(0, np.float32)
        tail = self._stream.resample_chunk(np.zeros(0, np.float32), last=True)
        self._stream = None
        return tail
