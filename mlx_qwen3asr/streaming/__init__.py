"""Live transcription: audio arriving in pieces -> committed text + a tentative tail (see session.py)."""

from .session import (
    CLOSE_PAUSE_SECONDS,
    LEAD_IN_SECONDS,
    SEARCH_SECONDS,
    UNFIXED_DECODES,
    Engine,
    StreamingOptions,
    StreamingTranscriber,
    Update,
    joined,
)

__all__ = [
    "CLOSE_PAUSE_SECONDS", "LEAD_IN_SECONDS", "SEARCH_SECONDS", "UNFIXED_DECODES", "Engine",
    "StreamingOptions", "StreamingTranscriber", "Update", "joined",
]  # fmt: skip
