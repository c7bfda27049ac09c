"""Endpointing: 16 kHz samples -> utterances delimited by pauses (voiced frames: vad.py's rule).

    samples -> 20 ms frames -> voiced / unvoiced by the frame judge: the level (dBFS) against the adaptive
               noise floor (vad.py, the default), or Silero VAD's speech state (vad/endpoint.py)
    idle: keep the last `preroll` seconds; >= 160 ms voiced within 300 ms opens an utterance that
          starts `preroll` before its first voiced frame (never before the previous utterance's end)
    open: `pause` seconds unvoiced closes it (end = last voiced frame + 0.3 s tail); reaching
          `max_seconds` cuts it at its quietest 100 ms within the last 5 s and the rest stays open
    an utterance with less than 0.25 s of voiced frames is dropped: clicks and bumps give no text

Decisions depend on sample counts only, never on a clock or on how the audio was blocked, so the
same audio always gives the same utterances (live, replayed at real-time pace, or `--fast`).
"""

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..audio.samples import SAMPLE_RATE as RATE
from ..audio.split import quietest
from ..vad.detector import FrameJudge
from ..vad.energy import FRAME, ONSET_FRAMES, PAUSE_SECONDS, EnergyFrames, PauseTracker, frame_db
from .input import SampleBuffer

MAX_UTTERANCE_SECONDS = 20.0  # longer without a pause: cut at its quietest point
MIN_PAUSE_SECONDS = 0.1  # a shorter `pause` would end utterances between words
MIN_MAX_UTTERANCE_SECONDS = 6.0  # a cut looks for the quietest point in the last 5 s
PREROLL_SECONDS = 0.5  # audio kept before the first voiced frame (soft onsets)
TAIL_FRAMES = 15  # 0.3 s of the pause stays in the utterance: the model likes a short silent tail
MIN_SPEECH_FRAMES = 13  # 0.26 s voiced at least, or the utterance is noise
SEARCH_FRAMES, QUIET_WINDOW = 250, 5  # a long utterance is cut in the quietest 100 ms of its last 5 s


@dataclass
class Utterance:
    """A finished utterance; positions are sample indices in the stream."""

    start: int
    end: int
    audio: np.ndarray
    speech_end: int  # end of its last voiced frame: where the speaker paused
    reason: str  # "pause", "cut" (too long without a pause) or "flush" (end of input, device lost)


class Segmenter:
    """Feed 16 kHz mono float32 with `push`; get back the utterances that finished."""

    def __init__(
        self,
        pause: float = PAUSE_SECONDS,
        max_seconds: float = MAX_UTTERANCE_SECONDS,
        preroll: float = PREROLL_SECONDS,
        voice: Optional[FrameJudge] = None,
    ) -> None:
        """voice: which frames are voiced (default: vad/energy.py's rule; vad/endpoint.py's SpeechFrames: Silero VAD's)."""
        if pause < MIN_PAUSE_SECONDS or max_seconds < MIN_MAX_UTTERANCE_SECONDS:
            raise ValueError(
                f"pause must be >= {MIN_PAUSE_SECONDS} s and max_seconds >= {MIN_MAX_UTTERANCE_SECONDS} s, "
                f"got {pause}, {max_seconds}"
            )
        self.pauses = PauseTracker(pause)
        self.max_frames = round(max_seconds * RATE / FRAME)
        self.preroll_frames = round(preroll * RATE / FRAME)
        self._samples = SampleBuffer()
        self._db: list[float] = []  # per frame of the buffer, from frame self._first on
        self._voiced: list[bool] = []
        self._first = 0
        self._start: Optional[int] = None  # first frame of the open utterance
        self.voice = voice if voice is not None else EnergyFrames()
        self._judged = 0  # the stream position up to which the voice can judge frames
        self.level_db = -120.0

    @property
    def is_open(self) -> bool:
        return self._start is not None

    @property
    def floor_db(self) -> Optional[float]:
        return self.voice.floor_db

    @property
    def open_start(self) -> Optional[int]:
        """First sample of the open utterance (pre-roll included), or None."""
        return None if self._start is None else self._start * FRAME

    @property
    def analysed(self) -> int:
        """Samples looked at so far (whole frames)."""
        return (self._first + len(self._db)) * FRAME

    @property
    def quiet_seconds(self) -> float:
        """How long the open utterance has been unvoiced (0 while idle)."""
        if self._start is None:
            return 0.0
        return self.pauses.quiet_seconds

    @property
    def _last_voiced(self) -> int:
        """The open (or just closed) utterance's last voiced frame."""
        return self._first + len(self._db) - 1 - self.pauses.quiet

    def open_audio(self) -> Optional[np.ndarray]:
        """The open utterance's audio so far, or None."""
        return None if self._start is None else self._samples.get(self._start * FRAME, self.analysed)

    def open_voiced(self) -> Optional[np.ndarray]:
        """One flag per sample of open_audio(): its frame's voice judgement (the judge's, unchanged)."""
        if self._start is None:
            return None
        return np.repeat(np.array(self._voiced[self._start - self._first :], bool), FRAME)

    def closing_audio(self) -> Optional[np.ndarray]:
        """The audio the open utterance commits if the pause it is in goes on, once that is known
        (its 0.3 s tail has been heard), else None."""
        if self._start is None:
            return None
        end = self._last_voiced + 1 + TAIL_FRAMES
        voiced = sum(self._voiced[self._start - self._first : self._last_voiced + 1 - self._first])
        if end > self._first + len(self._db) or self.pauses.pause < TAIL_FRAMES or voiced < MIN_SPEECH_FRAMES:
            return None
        return self._samples.get(self._start * FRAME, end * FRAME)

    def push(self, samples: np.ndarray) -> list[Utterance]:
        samples = np.asarray(samples, np.float32)
        self._samples.append(samples)
        self._judged = self.voice.push(samples)
        done: list[Utterance] = []
        while self.analysed + FRAME <= min(self._samples.end, self._judged):
            utterance = self._step(self._samples.get(self.analysed, self.analysed + FRAME))
            if utterance is not None:
                done.append(utterance)
        if self._start is None:
            self._forget_before(self._first + len(self._db) - self.preroll_frames - ONSET_FRAMES)
        return done

    def flush(self) -> Optional[Utterance]:
        """Close the open utterance with everything analysed (end of input, device lost)."""
        if self._start is None:
            return None
        utterance = self._close(self._first + len(self._db), "flush")
        self.pauses.end()
        return utterance

    def _step(self, frame: np.ndarray) -> Optional[Utterance]:
        index = self._first + len(self._db)
        db = frame_db(frame)
        voiced = self.voice.is_voiced(index, db, self.pauses.speaking)
        self.level_db = db
        self._db.append(db)
        self._voiced.append(voiced)
        turn = self.pauses.push(voiced)
        if turn == "onset":
            self._start = max(index - self.pauses.onset_start() - self.preroll_frames, self._first)
            return None
        if turn == "pause":
            self.pauses.end()
            return self._close(min(self._last_voiced + 1 + TAIL_FRAMES, index + 1), "pause")
        if self._start is None:
            return None
        if index + 1 - self._start >= self.max_frames:
            return self._cut(index + 1)
        return None

    def _cut(self, end: int) -> Optional[Utterance]:
        """Close the part up to the quietest 100 ms of the last 5 s; the rest stays open."""
        lo = max(self._start + 1, end - SEARCH_FRAMES)
        power = 10.0 ** (np.array(self._db[lo - self._first : end - self._first]) / 10.0)
        cut = lo + quietest(power, QUIET_WINDOW)
        utterance = self._close(cut, "cut", speech_end=cut)
        self._start = cut  # still speaking (the tracker goes on): the rest stays open
        return utterance

    def _close(self, end: int, reason: str, speech_end: Optional[int] = None) -> Optional[Utterance]:
        start, self._start = self._start, None
        last = min(self._last_voiced + 1, end)
        voiced = sum(self._voiced[start - self._first : last - self._first])
        audio = self._samples.get(start * FRAME, end * FRAME)
        self._forget_before(end)
        if voiced < MIN_SPEECH_FRAMES:
            return None
        speech_end = last if speech_end is None else speech_end
        return Utterance(start * FRAME, end * FRAME, audio, speech_end * FRAME, reason)

    def _forget_before(self, frame: int) -> None:
        k = frame - self._first
        if k <= 0:
            return
        del self._db[:k], self._voiced[:k]
        self._first = frame
        self._samples.drop_before(frame * FRAME)
