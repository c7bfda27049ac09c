"""The diarizer family: pyannote's speaker-diarization-community-1 in MLX and numpy, without torch.

import mlx_qwen3asr as mq
diarizer = mq.load("path/to/speaker-diarization-community-1")
for turn in mq.diarize("meeting.wav", diarizer).turns:
    print(turn.start, turn.end, turn.speaker)
"""

from .pipeline import Diarizer, diarize
from .turns import Diarization, Turn

__all__ = ["Diarization", "Diarizer", "Turn", "diarize"]
