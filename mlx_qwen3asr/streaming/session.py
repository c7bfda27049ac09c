"""What every live session is, whichever engine is behind it: audio blocks in, Events out.

    LiveSession (live.py): utterances found by the voice-activity rule, each committed as `transcribe`
    gives it; WindowSession (window_session.py): one growing window, a running text committed in pieces.

Code that takes either (the server's live endpoint) asks only this.
"""

from typing import Optional, Protocol

import numpy as np

from .events import Event
from .live_stats import LiveStats


class LiveTranscriber(Protocol):
    committed: str  # every committed text of the session; only ever grows
    stats: LiveStats  # audio heard, compute spent, language, commits

    def feed(
        self, block: np.ndarray, captured_at: Optional[float] = None, rate: Optional[int] = None, partial: bool = True
    ) -> list[Event]:
        """Add a block of audio; the events it caused (partial=False: no tentative text now)."""
        ...

    def finish(self) -> list[Event]:
        """The end of the input: everything heard is committed; feeding may go on."""
        ...
