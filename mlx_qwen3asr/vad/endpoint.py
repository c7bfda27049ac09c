"""Silero VAD as the live end-pointer's ear: which 20 ms frames of the stream are speech.

    samples -> VadStream: a probability per 32 ms window, as it completes
    -> speech state with the reference's hysteresis: opens at p >= threshold, closes at p < neg_threshold
    -> a 20 ms frame is voiced when the window holding its last sample is in speech

The live Segmenter (streaming/segmenter.py) keeps its rules (an onset of 160 ms voiced within 300 ms
opens an utterance, `pause` seconds unvoiced closes it, less than 0.26 s voiced is dropped); only the
judge of a frame changes. A frame is judged once its window is complete: at most 32 ms later than
the energy rule judges it. Stationary noise, hum, clicks and typing stay far below the threshold
(tests/fixtures/silero_vad: at most 0.11), so they never open an utterance, whatever their level.
"""

from collections import deque
from typing import Optional

import numpy as np

from ..families.silero.model import WINDOW
from .stream import VadStream
from .timestamps import SpeechRule


class SpeechFrames:
    """The Segmenter's frame judge backed by a Silero VAD stream (see the module docstring)."""

    floor_db: Optional[float] = None  # no noise floor: the model hears speech, not level

    def __init__(self, stream: VadStream, frame: int, rule: SpeechRule = SpeechRule()) -> None:
        self.stream, self.frame, self.rule = stream, frame, rule
        self.speaking = False
        self.probability = 0.0  # the last window's
        self._states: deque[bool] = deque()  # per window, from window self._first on
        self._first = 0

    def push(self, samples: np.ndarray) -> int:
        """Hear `samples`; return the stream position up to which frames can be judged.
        One window per model call, so the probabilities (and every decision) are the same bits
        however the audio was blocked (a batch of windows sums in another order: ~1e-5 apart)."""
        at = 0
        while at < len(samples):
            take = WINDOW - self.stream.pending
            for p in self.stream.push(samples[at : at + take]).tolist():
                self.probability = p
                self.speaking = p >= self.rule.threshold if not self.speaking else p >= self.rule.low
                self._states.append(self.speaking)
            at += take
        return self.stream.windows * WINDOW

    def is_voiced(self, index: int, db: float, speaking: bool) -> bool:
        """Frame `index` (asked in order, once its window is complete) -> voiced."""
        window = ((index + 1) * self.frame - 1) // WINDOW
        while self._first < window:
            self._states.popleft()
            self._first += 1
        return self._states[0]
