"""What a live session measures: audio heard, compute spent, commit latencies, words, levels."""

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class LiveStats:
    audio_seconds: float = 0.0  # audio fed to the session
    compute_seconds: float = 0.0  # time spent in the engine (partials and finals)
    latencies: list[float] = field(default_factory=list)  # speech end -> text decoded, per pause
    utterances: int = 0
    words: int = 0
    language: str = ""
    level_db: float = -120.0  # the last 20 ms frame
    floor_db: float = -120.0  # the noise floor of the voice-activity rule
    speaking: bool = False  # an utterance is open

    @property
    def rtf(self) -> float:
        """Real-time factor: engine compute per second of audio (below 1 keeps up with speech)."""
        return self.compute_seconds / self.audio_seconds if self.audio_seconds else 0.0

    def add_commit(self, text: str, latency: Optional[float]) -> None:
        self.utterances += 1
        self.words += len(text.split())
        if latency is not None:
            self.latencies.append(latency)
