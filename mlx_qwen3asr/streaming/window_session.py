"""The window engine behind LiveSession's face: StreamingTranscriber's updates as live Events.

    block -> StreamingTranscriber.feed (one decoder run per 2 s of audio, a growing window)
      -> Update -> "language" when it changes, "commit" for new committed text (reason "window"),
         "partial" with the tentative text after each decoder run

For long monologues without pauses, where LiveSession would cut every `max_utterance` seconds: the
window engine commits a growing prefix of one running text instead. Its commits are pieces of that
text (a leading space where the language uses them): concatenated, they are `committed`. `start`
and `end` of a commit are the session seconds of the previous commit and of this one (the text
was spoken between them, as far as the window engine can tell).
"""

from typing import Optional

import numpy as np

from .events import Event
from .live_stats import LiveStats
from .transcriber import StreamingTranscriber, Update


class WindowSession:
    """feed/finish like LiveSession's, on a StreamingTranscriber. Not thread-safe."""

    def __init__(self, stream: StreamingTranscriber) -> None:
        """stream: the session's StreamingTranscriber, built (StreamingTranscriber(model, options) checks
        them; StreamingTranscriber.on_decoder(...) takes a decoder made after the caller's check)."""
        self.stream = stream
        self.committed = ""  # all committed text; only ever grows
        self.stats = LiveStats()  # audio_seconds, compute_seconds, language, commits
        self._until = 0.0  # session seconds at the last commit

    def feed(
        self, block: np.ndarray, captured_at: Optional[float] = None, rate: Optional[int] = None, partial: bool = True
    ) -> list[Event]:
        """Add samples at the session's sample_rate; the events. (captured_at, partial: as LiveSession's; unused here.)"""
        if rate not in (None, self.stream.sample_rate):
            raise ValueError(f"this session takes {self.stream.sample_rate} Hz audio, got {rate} Hz")
        return self._events(self.stream.feed(block))

    def finish(self) -> list[Event]:
        """Decode what is left and commit everything; feeding may go on."""
        return self._events(self.stream.finish())

    def _events(self, update: Update) -> list[Event]:
        events, now, stats = [], update.audio_seconds, self.stats
        stats.audio_seconds, stats.compute_seconds = now, stats.compute_seconds + update.compute_seconds
        if update.language and update.language != stats.language:
            stats.language = update.language
            events.append(Event("language", now, language=update.language))
        if update.new_committed:
            events.append(
                Event("commit", now, start=self._until, end=now, text=update.new_committed,
                      language=update.language, reason="window")
            )  # fmt: skip
            self._until = now
            stats.add_commit(update.new_committed, None)
        if update.steps:
            events.append(Event("partial", now, start=self._until, text=update.tentative, language=update.language))
        self.committed = update.committed
        return events
