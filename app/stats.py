"""What a session measures: audio heard, compute spent, commit latencies, words; and its summary."""

import statistics
import time
from dataclasses import dataclass, field


@dataclass
class SessionStats:
    started: float = field(default_factory=time.monotonic)  # when the input opened
    audio_seconds: float = 0.0  # audio pushed through the pipeline
    compute_seconds: float = 0.0  # time spent in the engine (partials and finals)
    latencies: list[float] = field(default_factory=list)  # speech end -> committed text, per pause
    utterances: int = 0
    words: int = 0
    overflows: int = 0  # input lost or late (PortAudio overflows, a full queue, jumps of the stream's clock)
    behind_seconds: float = 0.0  # captured audio waiting to be decoded
    language: str = ""
    level_db: float = -120.0  # the last 20 ms frame
    floor_db: float = -120.0  # the noise floor the voice detector uses
    speaking: bool = False  # an utterance is open

    @property
    def rtf(self) -> float:
        """Real-time factor: engine compute per second of audio (below 1 keeps up with speech)."""
        return self.compute_seconds / self.audio_seconds if self.audio_seconds else 0.0

    @property
    def last_latency(self) -> float | None:
        return self.latencies[-1] if self.latencies else None

    def summary(self) -> str:
        latency = f"{statistics.mean(self.latencies):.2f} s" if self.latencies else "n/a"
        return (f"session: {format_clock(self.audio_seconds)} of audio, {self.utterances} utterances, "
                f"{self.words} words, mean commit latency {latency}, real-time factor {self.rtf:.2f}"
                + (f", {self.overflows} input overflows" if self.overflows else ""))


def format_clock(seconds: float) -> str:
    """12.3 -> "00:12", 3725 -> "1:02:05"."""
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"
