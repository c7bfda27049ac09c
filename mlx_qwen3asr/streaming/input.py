"""What streaming does to incoming audio before any model sees it: hold it (SampleBuffer; HeldSamples
with their speech flags), and tell speech from quiet per 100 ms frame (from per-sample flags: vad/energy.py's
rule's or the caller's VAD's). (Blocks are made 16 kHz mono float32 first by audio.SampleStream.)"""

from typing import Optional

import numpy as np

from ..audio.samples import SAMPLE_RATE

FRAME = SAMPLE_RATE // 10  # pauses are measured in 100 ms frames


def speech_frames(voiced: np.ndarray) -> np.ndarray:
    """Per 100 ms frame (the last may be shorter): whether any of its samples is speech."""
    if len(voiced) == 0:
        return np.zeros(0, bool)
    return np.logical_or.reduceat(voiced, np.arange(0, len(voiced), FRAME))


class SampleBuffer:
    """A stream's samples from index `start` on: appended at the end (amortised O(1), so 1-sample
    feeds stay cheap), read by stream index, dropped from the front. The one growable sample buffer:
    the segmenter keeps the open utterance in it, StreamingTranscriber the samples no step took yet."""

    def __init__(self) -> None:
        self._data = np.zeros(4 * SAMPLE_RATE, np.float32)
        self.start = 0  # stream index of the first sample held
        self.size = 0  # samples held

    @property
    def end(self) -> int:
        return self.start + self.size

    def append(self, samples: np.ndarray) -> None:
        if self.size + len(samples) > len(self._data):
            grown = np.zeros(2 * (self.size + len(samples)), np.float32)
            grown[: self.size] = self._data[: self.size]
            self._data = grown
        self._data[self.size : self.size + len(samples)] = samples
        self.size += len(samples)

    def get(self, a: int, b: int) -> np.ndarray:
        """A copy of stream samples [a, b)."""
        return self._data[a - self.start : b - self.start].copy()

    def drop_before(self, index: int) -> None:
        k = min(max(0, index - self.start), self.size)
        self._data[: self.size - k] = self._data[k : self.size]
        self.size -= k
        self.start += k

    def take(self, n: Optional[int] = None) -> np.ndarray:
        """The first n samples held (all when None), dropped from the buffer."""
        end = self.end if n is None else self.start + n
        samples = self.get(self.start, end)
        self.drop_before(end)
        return samples


class HeldSamples:
    """Samples waiting to complete a chunk, with the speech flags the caller pushed them with (if any):
    the flags stay beside their samples, however the blocks were cut."""

    def __init__(self) -> None:
        self.samples, self._flags = SampleBuffer(), SampleBuffer()  # flags as 0.0 / 1.0

    @property
    def size(self) -> int:
        return self.samples.size

    def append(self, samples: np.ndarray, voiced: Optional[np.ndarray]) -> None:
        """Hold `samples`; ValueError when flags come for some of a session's blocks only (none: nothing to hold)."""
        if not len(samples):
            return
        if self.size and (voiced is not None) != bool(self._flags.size):
            raise ValueError("push every block of a session with its speech flags, or none")
        self.samples.append(samples)
        if voiced is not None:
            self._flags.append(np.asarray(voiced, np.float32))

    def take(self) -> tuple[np.ndarray, Optional[np.ndarray]]:
        """Everything held and its flags (None: pushed without, to be judged), taken."""
        voiced = self._flags.take() > 0 if self._flags.size else None
        return self.samples.take(), voiced
