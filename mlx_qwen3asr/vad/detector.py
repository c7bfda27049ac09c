"""What the engine asks a voice detector, whichever it is (vad/energy.py's EnergyVad, vad/silero.py's
SileroVad): the stretches of a recording to decode, and a judge of live frames for the segmenter."""

from typing import Optional, Protocol

import numpy as np


class FrameJudge(Protocol):
    """Says which 20 ms frames are voiced: `push` hears samples and returns the stream position up to
    which frames can be judged; `is_voiced` is then asked about each frame, in order."""

    floor_db: Optional[float]

    def push(self, samples: np.ndarray) -> int: ...

    def is_voiced(self, index: int, db: float, speaking: bool) -> bool: ...


class VoiceDetector(Protocol):
    """A voice detector: `speech_pieces` for offline audio, `frame_judge` for a live stream."""

    name: str

    def frame_judge(self, frame: int) -> FrameJudge: ...

    def speech_pieces(self, wave: np.ndarray, chunk_seconds: float) -> list[tuple[int, int]]: ...
