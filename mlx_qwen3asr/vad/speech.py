"""Offline speech finding: where in a long recording to decode, by Silero VAD.

    wave (16 kHz) -> speech segments (timestamps.py's rule, default arguments, in samples)
    -> neighbours closer than MAX_GAP_SECONDS joined while the piece stays within the chunk limit
       (a short pause keeps its context; a long stretch without speech is a cut)
    -> a single segment longer than the limit: split at its quietest points (audio/split.py)
    -> (start, end) sample ranges to decode; everything between them is never decoded

Noise, hum, music-like tones and silence give no segment (tests/fixtures/silero_vad), so the
recogniser never sees them and cannot invent text for them.
"""

from typing import Protocol

import numpy as np

from ..audio.split import split_audio
from ..families.silero.model import SAMPLE_RATE

MAX_GAP_SECONDS = 2.0  # a longer stretch without speech ends a piece


class SpeechSamples(Protocol):
    def speech_samples(self, wave: np.ndarray) -> list[tuple[int, int]]:
        """(start, end) sample ranges of the speech segments of `wave` (SileroVad's)."""


def speech_ranges(vad: SpeechSamples, wave: np.ndarray, chunk_seconds: float) -> list[tuple[int, int]]:
    """(start, end) sample ranges of `wave` that hold its speech, each at most `chunk_seconds` long."""
    limit, gap = int(chunk_seconds * SAMPLE_RATE), int(MAX_GAP_SECONDS * SAMPLE_RATE)
    pieces: list[list[int]] = []
    for start, end in vad.speech_samples(wave):
        if pieces and start - pieces[-1][1] <= gap and end - pieces[-1][0] <= limit:
            pieces[-1][1] = end
        else:
            pieces.append([start, end])
    ranges: list[tuple[int, int]] = []
    for start, end in pieces:
        for offset, part in split_audio(wave[start:end], chunk_seconds):
            ranges.append((start + offset, start + offset + len(part)))
    return ranges
