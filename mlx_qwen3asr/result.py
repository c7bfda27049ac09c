"""What a transcription returns: the text, its language, and one segment per decoded chunk."""

from dataclasses import dataclass, field

from .generate import FinishFlags, FinishReason


@dataclass
class Segment(FinishFlags):
    """One decoded chunk of the audio, with its place in the input in seconds."""

    start: float
    end: float
    text: str
    language: str = ""
    token_ids: list[int] = field(default_factory=list)  # generated ids, language header included
    finish_reason: FinishReason = "stop"  # "stop" (end-of-text), "length" (token budget), "repetition"


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
