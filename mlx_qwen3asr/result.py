"""What a transcription returns: the text, its language, and one segment per decoded chunk
(with its words' times when an aligner was given)."""

from dataclasses import dataclass, field
from typing import Literal, Optional

# Why decoding ended: end-of-text, the token budget, or a repetition loop (cut down to one copy).
FinishReason = Literal["stop", "length", "repetition"]


class FinishFlags:
    """The finish_reason as the two flags results carried before it existed."""

    finish_reason: FinishReason

    @property
    def hit_token_budget(self) -> bool:
        """Decoding stopped at the token budget, not at end-of-text."""
        return self.finish_reason == "length"

    @property
    def repetition_trimmed(self) -> bool:
        """A runaway loop was detected, stopped and cut out."""
        return self.finish_reason == "repetition"


@dataclass(frozen=True)
class Word:
    """One aligned unit: a word with its punctuation removed, or one Chinese character; seconds.
    start == end happens (the aligner gave the unit no time): such words are kept."""

    text: str
    start: float
    end: float
    speaker: Optional[str] = None  # with transcribe(..., diarizer=): SPEAKER_00, ...


@dataclass
class Segment(FinishFlags):
    """One decoded chunk of the audio, with its place in the input in seconds."""

    start: float
    end: float
    text: str
    language: str = ""
    token_ids: list[int] = field(default_factory=list)  # generated ids, language header included
    finish_reason: FinishReason = "stop"  # "stop" (end-of-text), "length" (token budget), "repetition"
    words: Optional[list[Word]] = None  # with transcribe(..., aligner=): times in the whole input
    # the decoded text only repeated the context over audio without speech, so text is "" (decode/echo.py);
    # token_ids keep what was decoded
    context_echo: bool = False
    speaker: Optional[str] = None  # with transcribe(..., diarizer=): segments are split where it changes


@dataclass
class Transcription:
    text: str
    language: str  # languages of the segments in order, consecutive repeats merged: "English,German"
    segments: list[Segment] = field(default_factory=list)

    @property
    def token_ids(self) -> list[list[int]]:
        return [s.token_ids for s in self.segments]

    @property
    def hit_token_budget(self) -> bool:
        return any(s.hit_token_budget for s in self.segments)

    @property
    def repetition_trimmed(self) -> bool:
        return any(s.repetition_trimmed for s in self.segments)

    @property
    def context_echo(self) -> bool:
        """Some segment's text was dropped as an echo of the context (see Segment.context_echo)."""
        return any(s.context_echo for s in self.segments)
