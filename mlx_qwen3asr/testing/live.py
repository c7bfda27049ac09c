"""A live session fed a recording at real-time pace on a fake clock (tests, examples): no microphone, no waiting.

audio [N] 16 kHz -> 30 ms blocks -> LiveSession.feed, the clock set to each block's end -> finish()
-> every event the session gave, in order
"""

from typing import Optional

import numpy as np

from ..audio.io import SAMPLE_RATE
from ..options import DecodeOptions
from ..streaming import LiveSession

BLOCK = 480  # 30 ms, a microphone callback's size


class FakeClock:
    """A clock that says what it is told (LiveSession(clock=...))."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def fed_in_real_time(model, audio: np.ndarray, options: Optional[DecodeOptions] = None) -> list:
    """The events of a LiveSession over `audio`, fed in 30 ms blocks as if it were arriving now."""
    clock = FakeClock()
    live = LiveSession(model, options or DecodeOptions(), clock=clock)
    events = []
    for start in range(0, len(audio), BLOCK):
        clock.now = (start + BLOCK) / SAMPLE_RATE
        events += live.feed(audio[start : start + BLOCK])
    return events + live.finish()
