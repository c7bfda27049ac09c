"""Speech segments from per-window probabilities: the reference's `get_speech_timestamps` rule (16 kHz,
max_speech_duration_s unlimited), in samples and in its seconds.

    window i (its first sample s = 512 * i, probability p):
      not in speech: p >= threshold opens a segment at s
      in speech:     the first p < neg_threshold records a tentative end at s; p >= threshold cancels it;
                     probabilities between the two change nothing (hysteresis); once s - tentative end
                     >= min_silence the segment ends at the tentative end, kept if longer than min_speech
      end of audio:  an open segment ends at n (the clip's length), kept if longer than min_speech
    padding: the first start -= pad (>= 0); neighbours closer than 2 * pad meet halfway (gap // 2 each),
             else end += pad (<= n), next start -= pad (>= 0); the last end += pad (<= n); int() truncates
    seconds: round(sample / 16000, 1) with Python's round (0.1 s steps), an end capped at n / 16000
"""

from dataclasses import dataclass
from typing import Optional

from ..families.silero.model import SAMPLE_RATE, WINDOW

NEG_THRESHOLD_GAP = 0.15  # neg_threshold defaults to max(threshold - 0.15, 0.01)
NEG_THRESHOLD_MIN = 0.01
TIME_RESOLUTION = 1  # decimals of the seconds


@dataclass(frozen=True)
class SpeechRule:
    """The segmenting parameters, as the reference names them (milliseconds as integers or floats)."""

    threshold: float = 0.5
    min_speech_duration_ms: float = 250
    min_silence_duration_ms: float = 100
    speech_pad_ms: float = 30
    neg_threshold: Optional[float] = None

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold}")
        if min(self.min_speech_duration_ms, self.min_silence_duration_ms, self.speech_pad_ms) < 0:
            raise ValueError("min_speech_duration_ms, min_silence_duration_ms and speech_pad_ms must be >= 0")

    @property
    def low(self) -> float:
        """The exit threshold: in speech, below this is silence."""
        if self.neg_threshold is not None:
            return self.neg_threshold
        return max(self.threshold - NEG_THRESHOLD_GAP, NEG_THRESHOLD_MIN)


def _samples(ms: float) -> float:
    return SAMPLE_RATE * ms / 1000


def raw_segments(probs: list[float], length: int, rule: SpeechRule) -> list[list[int]]:
    """[start, end] in samples before padding (steps 1-3 of the module docstring)."""
    min_speech, min_silence = _samples(rule.min_speech_duration_ms), _samples(rule.min_silence_duration_ms)
    segments: list[list[int]] = []
    start: Optional[int] = None
    quiet_from = 0  # the tentative end (0: none; a window after the start is never at sample 0)
    for i, p in enumerate(probs):
        s = WINDOW * i
        if p >= rule.threshold:
            quiet_from = 0
            if start is None:
                start = s
                continue
        if start is not None and p < rule.low:
            quiet_from = quiet_from or s
            if s - quiet_from >= min_silence:
                if quiet_from - start > min_speech:
                    segments.append([start, quiet_from])
                start, quiet_from = None, 0
    if start is not None and length - start > min_speech:
        segments.append([start, length])
    return segments


def pad_segments(segments: list[list[int]], length: int, speech_pad_ms: float) -> list[list[int]]:
    """Step 4: widen each segment by the pad, neighbours meeting halfway when closer than two pads."""
    pad = _samples(speech_pad_ms)
    for i, segment in enumerate(segments):
        if i == 0:
            segment[0] = int(max(0, segment[0] - pad))
        if i == len(segments) - 1:
            segment[1] = int(min(length, segment[1] + pad))
            break
        following = segments[i + 1]
        gap = following[0] - segment[1]
        if gap < 2 * pad:
            segment[1] += int(gap // 2)
            following[0] = int(max(0, following[0] - gap // 2))
        else:
            segment[1] = int(min(length, segment[1] + pad))
            following[0] = int(max(0, following[0] - pad))
    return segments


def speech_samples(probs: list[float], length: int, rule: SpeechRule = SpeechRule()) -> list[tuple[int, int]]:
    """Speech segments as (start, end) sample indices of the 16 kHz clip of `length` samples."""
    return [(a, b) for a, b in pad_segments(raw_segments(probs, length, rule), length, rule.speech_pad_ms)]


def to_seconds(segments: list[tuple[int, int]], length: int) -> list[tuple[float, float]]:
    """The reference's return_seconds=True: 0.1 s steps, an end capped at the clip's exact length."""
    total = length / SAMPLE_RATE
    return [
        (max(round(a / SAMPLE_RATE, TIME_RESOLUTION), 0), min(round(b / SAMPLE_RATE, TIME_RESOLUTION), total))
        for a, b in segments
    ]
