"""What a session measures (the live session's numbers, plus the input's) and its summary."""

import statistics
import time
from dataclasses import dataclass, field

from mlx_qwen3asr.streaming import LiveStats


@dataclass
class SessionStats(LiveStats):
    started: float = field(default_factory=time.monotonic)  # when the input opened
    overflows: int = 0  # input lost or late (PortAudio overflows, a full queue, jumps of the stream's clock)
    behind_seconds: float = 0.0  # captured audio waiting to be decoded
    paused: bool = False  # listening paused by the user

    @property
    def last_latency(self) -> float | None:
        return self.latencies[-1] if self.latencies else None

    def summary(self) -> str:
        latency = f"{statistics.mean(self.latencies):.2f} s" if self.latencies else "n/a"
        return (
            f"session: {format_clock(self.audio_seconds)} of audio, {self.utterances} utterances, "
            f"{self.words} words, mean commit latency {latency}, real-time factor {self.rtf:.2f}"
            + (f", {self.overflows} input overflows" if self.overflows else "")
        )


def format_clock(seconds: float) -> str:
    """12.3 -> "00:12", 3725 -> "1:02:05"."""
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"
