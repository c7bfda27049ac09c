"""What a streaming session reports and how it is tuned (`Update`, `StreamingTuning`), and the state of
its current window (`Window`): the plain values StreamingTranscriber (transcriber.py) works with."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from ..vad.energy import PauseTracker


@dataclass(frozen=True)
class StreamingTuning:
    """Switches for equality tests and benchmarks. The defaults are the fast, exact settings. (The
    token cap per run is the session's DecodeOptions.max_new_tokens.)"""

    encoder_cache: bool = True  # encode only the 8 s encoder windows whose input changed
    kv_reuse: bool = True  # keep the decoder's keys/values of the prompt head and unchanged audio
    draft: bool = True  # verify the last run's tail in one batched forward pass
    stop_loops: bool = True  # False only to benchmark random weights, which loop at once


class StreamSettings(TypedDict, total=False):
    """A streaming session's settings. sample_rate: the rate of the blocks fed (resampled to 16 kHz
    without seams; a block carries no rate, so the session cannot know it: give it here, or other rates
    are heard as 16 kHz). chunk_seconds: audio per decoder run (0.5 s or more, default 2; shorter =
    fresher text, more compute). window_seconds / max_prefix_tokens: caps on the audio and forced text
    one run sees (30 s, 150). rollback_tokens: trailing tokens of the last run left open to revision
    (the official 5). clock: the clock steps are timed by (a test seam)."""

    sample_rate: int
    chunk_seconds: float
    window_seconds: float
    max_prefix_tokens: int
    rollback_tokens: int
    clock: Callable[[], float]


@dataclass(frozen=True)
class Update:
    committed: str  # all committed text of the session; every update's starts with the last one's
    new_committed: str  # what this call appended to `committed`
    tentative: str  # the current guess for the text after `committed`; may change at every update
    language: str  # language of the current window ("" until known), or the forced language
    audio_seconds: float  # audio received since the session started
    compute_seconds: float  # time spent in decoder runs during this call (0: it only buffered)
    steps: int  # decoder runs during this call

    @property
    def text(self) -> str:
        return self.committed + self.tentative


@dataclass
class Window:
    """The audio since the current window started and what the decoder made of it."""

    base: str  # the session's committed text when the window started
    audio: np.ndarray
    raw: list[int]  # the last run's ids: language header + text
    committed: list[int]  # the forced (final) part of raw
    voiced: np.ndarray  # per sample of audio: speech (vad/energy.py's rule, or the caller's flags)
    pauses: PauseTracker  # over its 100 ms frames (quiet counted in samples); speaking once one was loud
    decodes: int = 0

    @property
    def speech(self) -> bool:
        """A loud frame has been heard."""
        return self.pauses.speaking
