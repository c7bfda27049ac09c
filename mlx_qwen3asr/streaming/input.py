"""What streaming does to incoming audio before any model sees it: queue it, and tell speech from
quiet per 100 ms frame (from audio/vad.py's per-sample flags). (Blocks are made 16 kHz mono
float32 first by audio.SampleStream.)"""

from typing import Optional

import numpy as np

from ..audio.samples import SAMPLE_RATE

FRAME = SAMPLE_RATE // 10  # pauses are measured in 100 ms frames


def speech_frames(voiced: np.ndarray) -> np.ndarray:
    """Per 100 ms frame (the last may be shorter): whether any of its samples is speech."""
    if len(voiced) == 0:
        return np.zeros(0, bool)
    return np.logical_or.reduceat(voiced, np.arange(0, len(voiced), FRAME))


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
