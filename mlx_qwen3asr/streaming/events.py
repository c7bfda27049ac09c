"""What a live session tells its user: one Event per thing that happened, in order.

Times are seconds of the session's audio (samples received / 16000, plus any audio reported lost),
so they mean the same live, replayed at real-time pace, or replayed as fast as decoding allows.
`to_dict` is the JSON form and `to_json` its one serialization (`mlx-qwen3asr-dictate --events jsonl`,
the server's WebSocket); docs/live.md documents it.
"""

import json
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

# The fields each kind of event carries in its JSON form, besides "type" and "time".
FIELDS = {
    "speech": ("start",),  # speech started; the utterance (pre-roll included) begins at start
    "partial": ("start", "text", "language"),  # tentative text of the open utterance; may change
    "commit": ("start", "end", "text", "language", "reason", "latency"),  # final text; never changes
    "silence": ("start",),  # the speaker stopped at start (the open utterance closed)
    "language": ("language",),  # the detected language changed
    "gap": ("start", "end"),  # audio from start to end was lost (the input stalled or overflowed)
}


@dataclass(frozen=True)
class Event:
    type: str  # one of FIELDS
    time: float  # how much of the session's audio had been analysed when it happened
    start: Optional[float] = None
    end: Optional[float] = None
    text: str = ""
    language: str = ""
    reason: str = ""  # commit: "pause", "cut" (too long without a pause), "flush" (input ended) or
    # "window" (the window engine's commits: pieces of one running text, see WindowSession)
    latency: Optional[float] = None  # commit after a pause: speech end -> committed, wall-clock s
    audio: Optional[np.ndarray] = field(default=None, repr=False, compare=False)  # commit: 16 kHz
    words: tuple = ()  # commit, when an aligner timed it: Word(text, start, end) in session seconds

    def to_dict(self) -> dict:
        """The JSON object for this event: its type, time and the fields of its kind."""
        out: dict = {"type": self.type, "time": round(self.time, 3)}
        for name in FIELDS[self.type]:
            value = getattr(self, name)
            out[name] = round(value, 3) if isinstance(value, float) else value
        if self.words:
            out["words"] = [{"text": w.text, "start": w.start, "end": w.end} for w in self.words]
        return out

    def to_json(self) -> str:
        """One line of JSON: the app's `--events jsonl` and the server's WebSocket messages."""
        return json.dumps(self.to_dict(), ensure_ascii=False)
