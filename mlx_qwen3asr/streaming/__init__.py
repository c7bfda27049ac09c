"""Live transcription: audio arriving in pieces -> committed text + a tentative tail.

LiveSession (live.py): utterances found by the voice-activity rule, each committed as offline
transcription gives it, with events; StreamingTranscriber (transcriber.py): one growing window;
WindowSession (window_session.py): the window engine with LiveSession's events; LiveTranscriber
(session.py): what both are (feed, finish, committed, stats).
"""

from .events import Event
from .live import LiveSession
from .live_stats import LiveStats
from .session import LiveTranscriber
from .transcriber import StreamingTranscriber, StreamingTuning, Update
from .window_session import WindowSession

__all__ = [
    "Event",
    "LiveSession",
    "LiveStats",
    "LiveTranscriber",
    "StreamingTranscriber",
    "StreamingTuning",
    "Update",
    "WindowSession",
]
