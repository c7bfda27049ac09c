"""What streaming does to incoming audio before any model sees it: queue it, and tell speech from
quiet per 100 ms frame. (Blocks are made 16 kHz mono float32 first by audio.SampleStream.)"""

from typing import Optional

import numpy as np

from ..audio.samples import SAMPLE_RATE

SILENCE_DB = -50.0  # RMS of a 100 ms frame below this (dBFS) is quiet: room noise, not speech
FRAME = SAMPLE_RATE // 10


def loud_frames(pcm: np.ndarray, silence_db: float = SILENCE_DB) -> np.ndarray:
    """Per 100 ms frame (the last may be shorter): whether its RMS level reaches silence_db."""
    starts = np.arange(0, len(pcm), FRAME)
    energy = np.add.reduceat(np.square(pcm, dtype=np.float64), starts) if len(pcm) else np.zeros(0)
    counts = np.diff(np.append(starts, len(pcm)))
    return 10 * np.log10(np.maximum(energy / np.maximum(counts, 1), 1e-20)) >= silence_db


class PendingSamples:
    """Samples not yet consumed by a step; appending is O(1) so 1-sample feeds stay cheap."""

    def __init__(self):
        self.parts: list[np.ndarray] = []
        self.size = 0

    def append(self, samples: np.ndarray) -> None:
        if samples.size:
            self.parts.append(samples)
            self.size += samples.size

    def take(self, n: Optional[int] = None) -> np.ndarray:
        """The first n samples (all when None)."""
        whole = np.concatenate(self.parts) if self.parts else np.zeros(0, np.float32)
        n = whole.size if n is None else n
        self.parts, self.size = ([whole[n:]] if n < whole.size else []), whole.size - n
        return whole[:n]
