"""The commit policy: 16 kHz audio in, tentative and committed text out.

    push(samples, capture time) -> Segmenter -> finished utterance -> engine.final -> on_commit
    refresh()                   -> open utterance, when due -> engine.partial -> on_tentative

Partials are bounded: at most one per `refresh_every` seconds, never sooner than twice the last
partial's own cost after it (so they take at most a third of the time), none once the speaker has
been quiet for 0.2 s (a final is probably coming: a partial then would only delay it), and the
caller asks for one only when it has caught up with the input. Latency is measured from
the wall-clock time of the utterance's last voiced sample to the moment on_commit returned.
"""

import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from .engine import UtteranceEngine
from .segmenter import RATE, Segmenter, Utterance
from .stats import SessionStats

MIN_PARTIAL_SECONDS = 0.3
PARTIAL_QUIET_LIMIT = 0.2  # the speaker may be pausing: keep the engine free for the final
SILENT_PEAK = 1e-4  # -80 dBFS: below any real microphone's own noise; digital silence


@dataclass
class Commit:
    text: str
    start: float  # seconds since the session started (stream time)
    end: float
    language: str
    audio: np.ndarray
    lost_seconds: float = 0.0  # > 0: not speech but the mark of a gap in the input


def gap_mark(seconds: float) -> str:
    return f"[… {seconds:.1f} s of audio lost …]"


class Pipeline:
    def __init__(self, engine: UtteranceEngine, on_commit: Callable[[Commit], None],
                 on_tentative: Callable[[str], None], segmenter: Optional[Segmenter] = None,
                 clock: Callable[[], float] = time.monotonic, refresh_every: Optional[float] = 0.5,
                 stats: Optional[SessionStats] = None) -> None:
        self.engine = engine
        self.on_commit = on_commit
        self.on_tentative = on_tentative
        self.segmenter = segmenter or Segmenter()
        self.clock = clock
        self.refresh_every = refresh_every  # None: no partials
        self.stats = stats or SessionStats()
        self.stats.started = clock()
        self._times: deque[tuple[int, float]] = deque()  # (end sample of a push, its capture time)
        self._received = 0
        self.last_sound_time = clock()  # capture time of the last push with any signal in it
        self._next_partial = 0.0
        self._partial_for = -1  # audio length the shown partial was made from
        self._lost = 0.0  # seconds of input lost so far: commit times stay those of the session

    def push(self, samples: np.ndarray, captured_at: float) -> None:
        self._received += len(samples)
        self._times.append((self._received, captured_at))
        while len(self._times) > 1 and self._times[1][0] < self._received - 60 * RATE:
            self._times.popleft()
        if len(samples) and float(np.max(np.abs(samples))) >= SILENT_PEAK:
            self.last_sound_time = captured_at
        self.stats.audio_seconds = self._received / RATE
        for utterance in self.segmenter.push(samples):
            self._commit(utterance)
        self._update_levels()

    def refresh(self) -> None:
        """Show a new partial for the open utterance if one is due and there is new audio."""
        seg = self.segmenter
        if self.refresh_every is None or not seg.is_open or self.clock() < self._next_partial:
            return
        if seg.quiet_seconds > PARTIAL_QUIET_LIMIT:
            return
        audio = seg.open_audio()
        if len(audio) < MIN_PARTIAL_SECONDS * RATE or len(audio) == self._partial_for:
            return
        started = self.clock()
        text = self.engine.partial(audio)
        cost = self.clock() - started
        self.stats.compute_seconds += cost
        self._next_partial = self.clock() + max(self.refresh_every, 2 * cost)
        self._partial_for = len(audio)
        self.stats.language = self.engine.language or self.stats.language
        self.on_tentative(text)

    def flush(self) -> None:
        """Finalise the open utterance now (a gap in the input, or its end)."""
        utterance = self.segmenter.flush()
        if utterance is not None:
            self._commit(utterance)
        self._update_levels()

    def gap(self, seconds: float) -> None:
        """`seconds` of input were lost here: finalise the open utterance and mark the gap."""
        self.flush()
        at = self._received / RATE + self._lost
        self._lost += seconds
        self.on_commit(Commit(gap_mark(seconds), at, at + seconds, "", np.zeros(0, np.float32), seconds))

    def begin(self) -> None:
        """The input just opened: elapsed time and the silent-microphone timer start now."""
        self.stats.started = self.last_sound_time = self.clock()

    def _commit(self, utterance: Utterance) -> None:
        started = self.clock()
        text = self.engine.final(utterance.audio).strip()
        self.stats.compute_seconds += self.clock() - started
        self._partial_for = -1
        self.on_tentative("")
        if not text:
            return
        self.stats.language = self.engine.language or self.stats.language
        self.on_commit(Commit(text, utterance.start / RATE + self._lost, utterance.end / RATE + self._lost,
                              self.engine.language, utterance.audio))
        self.stats.utterances += 1
        self.stats.words += len(text.split())
        if utterance.reason == "pause":
            self.stats.latencies.append(self.clock() - self._time_of(utterance.speech_end))

    def _time_of(self, sample: int) -> float:
        """Wall-clock time at which `sample` was captured."""
        for end, captured_at in self._times:
            if end >= sample:
                return captured_at - (end - sample) / RATE
        return self._times[-1][1]

    def _update_levels(self) -> None:
        seg = self.segmenter
        self.stats.level_db = seg.level_db
        self.stats.floor_db = seg.floor_db if seg.floor_db is not None else -120.0
        self.stats.speaking = seg.is_open
