"""The one voice-activity rule: which 20 ms frames of 16 kHz audio are speech, and when speech starts.

    samples -> 20 ms frames -> level (dBFS, mean power) -> voiced when above
        max(noise floor + MARGIN_DB, MIN_LEVEL_DB)    (HYSTERESIS_DB lower while speech is open)
    speech starts (an onset) at ONSET_VOICED voiced frames within ONSET_FRAMES (160 ms in 300 ms)
    and pauses after a run of unvoiced frames (PauseTracker: PAUSE_SECONDS, or the caller's length)

Who uses it, and how:
    live sessions (LiveSession, the dictation app: streaming/segmenter.py) and StreamingTranscriber
        (VoiceActivity): the full rule, with the adaptive noise floor (NoiseFloor) and the one
        PauseTracker: silence, steady noise (a fan, room tone), a single louder frame and clicks
        never reach the decoder;
    offline transcription (contains_speech): no noise floor, as a recording has no "before" to learn
        it from and its steady background may carry speech; a clip without a single onset above
        MIN_LEVEL_DB (digital silence, dither, clicks) is not decoded.

Every threshold is named once, here; the numbers are those the dictation app was measured with.
"""

from collections import deque
from typing import Optional

import numpy as np

from ..audio.samples import SAMPLE_RATE
from ..audio.split import split_audio

FRAME = 320  # 20 ms
ONSET_FRAMES, ONSET_VOICED = 15, 8  # 8 voiced frames in a 300 ms window: speech starts
ONSET = (ONSET_FRAMES, ONSET_VOICED)
MARGIN_DB = 12.0  # voiced = this far above the noise floor ...
MIN_LEVEL_DB = -60.0  # ... and louder than this: digital silence, dither or a dead-quiet room never is
HYSTERESIS_DB = 4.0  # once speech has started it stays voiced down to 4 dB below the opening threshold
FLOOR_RISE_DB_PER_FRAME = 1.0 * FRAME / SAMPLE_RATE  # 1 dB/s: the floor follows a new steady noise slowly
FLOOR_FALL = 0.3  # and falls fast (30 % of the gap per frame) toward quieter frames
FLOOR_MIN_DB = -100.0
PAUSE_SECONDS = 0.6  # this much unvoiced audio ends speech (the app's measured default)
DEAD_PEAK = 1e-4  # -80 dBFS peak: below any real microphone's own noise; the input is dead (muted)


def frame_db(frame: np.ndarray) -> float:
    """Level of one frame in dBFS (mean power; -120 for digital silence)."""
    return 10.0 * float(np.log10(np.mean(frame * frame, dtype=np.float64) + 1e-12))


def frame_levels(wave: np.ndarray) -> np.ndarray:
    """dBFS of each whole 20 ms frame of `wave`."""
    n = len(wave) // FRAME
    power = np.mean(np.square(wave[: n * FRAME].reshape(n, FRAME), dtype=np.float64), axis=1)
    return 10.0 * np.log10(power + 1e-12)


def has_onset(voiced: np.ndarray) -> bool:
    """Whether some ONSET_FRAMES-long run of frames holds ONSET_VOICED voiced ones."""
    if len(voiced) == 0:
        return False
    counts = np.convolve(voiced.astype(np.int32), np.ones(ONSET_FRAMES, np.int32))
    return bool(counts.max() >= ONSET_VOICED)


def contains_speech(wave: np.ndarray) -> bool:
    """Offline: does the clip hold a speech onset above MIN_LEVEL_DB (no noise floor, see above)?"""
    return has_onset(frame_levels(wave) > MIN_LEVEL_DB)


class NoiseFloor:
    """The adaptive part of the rule: a running noise floor and the voiced threshold it implies."""

    def __init__(self) -> None:
        self.db: Optional[float] = None  # None until the first frame

    def threshold(self, speaking: bool) -> float:
        floor = self.db if self.db is not None else FLOOR_MIN_DB
        threshold = max(floor + MARGIN_DB, MIN_LEVEL_DB)
        return threshold - HYSTERESIS_DB if speaking else threshold

    def is_voiced(self, db: float, speaking: bool) -> bool:
        """Judge a frame against the floor so far, then let the floor learn from it."""
        voiced = db > self.threshold(speaking)
        self.track(db)
        return voiced

    def track(self, db: float) -> None:
        if self.db is None:
            self.db = max(db, FLOOR_MIN_DB)
        elif db < self.db:
            self.db = max(self.db + FLOOR_FALL * (db - self.db), FLOOR_MIN_DB)
        else:
            self.db = min(self.db + FLOOR_RISE_DB_PER_FRAME, db)


class EnergyFrames:
    """The live segmenter's frame judge by this rule (its alternative: vad/endpoint.py's
    SpeechFrames, the same two calls): every frame can be judged at once, against the noise floor."""

    def __init__(self) -> None:
        self.floor = NoiseFloor()
        self._heard = 0

    @property
    def floor_db(self) -> Optional[float]:
        return self.floor.db

    def push(self, samples: np.ndarray) -> int:
        """Hear `samples`; the stream position up to which frames can be judged (all of it)."""
        self._heard += len(samples)
        return self._heard

    def is_voiced(self, index: int, db: float, speaking: bool) -> bool:
        return self.floor.is_voiced(db, speaking)


class EnergyVad:
    """This rule as a voice detector, the alternative to vad.silero.SileroVad (`--vad energy`): the same
    two questions, which frames are speech live (frame_judge) and which stretches to decode offline
    (speech_pieces: all of it, cut at its quiet points by audio/split.py)."""

    name = "energy"

    def frame_judge(self, frame: int = FRAME) -> EnergyFrames:
        """The live segmenter's judge of `frame`-sample frames (FRAME, 20 ms, is the rule's own)."""
        assert frame == FRAME, "the energy rule judges its own 20 ms frames"
        return EnergyFrames()

    def speech_pieces(self, wave: np.ndarray, chunk_seconds: float) -> list[tuple[int, int]]:
        """(start, end) sample ranges to decode: the whole wave, cut at its quietest points."""
        return [(start, start + len(chunk)) for start, chunk in split_audio(wave, chunk_seconds)]


class PauseTracker:
    """The one pause rule, frame by frame: speech starts at an onset (`onset` = (frames, voiced):
    that many voiced frames within the last so many) and is paused once `pause_seconds` of frames
    in a row have had no voiced one; the caller ends it (`end()`), after which the next speech needs
    an onset of its own. Its users and their frames:
        VoiceActivity and the live segmenter: FRAME (20 ms) frames, the ONSET rule, PAUSE_SECONDS
            (the segmenter: its `pause` setting); they end speech at every pause;
        StreamingTranscriber's window: 100 ms frames of speech flags already past VoiceActivity's
            onset (one loud frame starts speech), frame=1 with each frame's length in samples pushed
            (the frames of a piece of audio are cut from its start: its last may be shorter), a
            pause of CLOSE_PAUSE_SECONDS; it never ends speech (the window closes instead).
    """

    def __init__(
        self, pause_seconds: float = PAUSE_SECONDS, frame: int = FRAME, onset: tuple[int, int] = ONSET
    ) -> None:
        """frame: samples per unit of `quiet` and `pause`; pause_seconds rounds to whole units."""
        self.frame = frame
        self.pause = round(pause_seconds * SAMPLE_RATE / frame)  # units of quiet that are a pause
        self.onset_voiced = onset[1]
        self.speaking = False
        self.quiet = 0  # units since the last voiced frame (counted while speaking)
        self._recent: deque = deque(maxlen=onset[0])  # flags while not speaking

    @property
    def paused(self) -> bool:
        """Speaking, and quiet for a pause's length since the last voiced frame."""
        return self.speaking and self.quiet >= self.pause

    @property
    def quiet_seconds(self) -> float:
        return self.quiet * self.frame / SAMPLE_RATE

    def push(self, voiced: bool, length: int = 1) -> str:
        """One frame's flag (`length` units long) -> "onset" (speech starts at this frame), "pause"
        (speech is paused: the caller ends it), or ""."""
        if not self.speaking:
            self._recent.append(voiced)
            if sum(self._recent) < self.onset_voiced:
                return ""
            self.speaking, self.quiet = True, 0
            return "onset"
        self.quiet = 0 if voiced else self.quiet + length
        return "pause" if self.quiet >= self.pause else ""

    def onset_start(self) -> int:
        """Right after an onset: how many frames before this one the onset's first voiced frame is."""
        recent = list(self._recent)
        return len(recent) - 1 - recent.index(True)

    def end(self) -> None:
        """Speech is over (a pause, or the input ended). `quiet` keeps its last count."""
        self.speaking = False
        self._recent.clear()


class VoiceActivity:
    """The rule over a stream: per-sample flags, True in voiced frames of speech that has started.

    Speech starts at an onset (its earlier voiced frames are not flagged: the caller keeps a lead-in)
    and ends after PAUSE_SECONDS without a voiced frame (PauseTracker). Frames lie on a 20 ms grid
    from the stream's first sample; the samples of a frame not yet complete are flagged False (it is
    judged when it is).
    """

    def __init__(self) -> None:
        self.floor = NoiseFloor()
        self.pauses = PauseTracker()
        self._partial = np.zeros(0, np.float32)  # the start of a frame not yet complete

    def push(self, samples: np.ndarray) -> np.ndarray:
        """Flags for `samples` (same length), given everything pushed before."""
        head = len(self._partial)
        audio = np.concatenate([self._partial, samples]) if head else samples
        n = len(audio) // FRAME
        flags = np.zeros(len(audio), bool)
        for i in range(n):
            flags[i * FRAME : (i + 1) * FRAME] = self._judge(frame_db(audio[i * FRAME : (i + 1) * FRAME]))
        self._partial = audio[n * FRAME :].copy()
        return flags[head:]

    def _judge(self, db: float) -> bool:
        voiced = self.floor.is_voiced(db, self.pauses.speaking)
        if self.pauses.push(voiced) == "pause":
            self.pauses.end()
        return voiced and self.pauses.speaking
