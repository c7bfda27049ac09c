"""Where each event of the live session goes, in order: files, then the screen, then the desktop.

commit  -> with --aligner: each word timed (Event.words, session seconds)
        -> one line: a line break inside the text becomes a space (JSONL keeps the text as is)
        -> --output / --save-audio (fsynced: on disk before it is on screen)
        -> display (a line) or, with --events jsonl, one JSON object on stdout
        -> clipboard / typing (--copy each, --type)
gap     -> a mark line ("[… 7.0 s of audio lost …]") in --output and on screen, and a message
partial -> the display's tentative text, or a JSON object
other   -> (speech, silence, language) JSON objects only; the status line shows the rest
"""

import dataclasses
import sys
import threading
from typing import Optional, TextIO

import mlx_qwen3asr as mq
from mlx_qwen3asr.streaming import Event

from .outputs import Delivery
from .transcript import gap_mark, one_line

LOST_MESSAGE = (
    "{:.1f} s of audio lost (the process stalled or the input overflowed): the utterance before "
    "it ends there; the gap is marked in the transcript"
)


class EventSink:
    def __init__(
        self,
        writers: list,
        display,
        delivery: Delivery,
        jsonl: bool,
        out: TextIO = sys.stdout,
        aligner: Optional["mq.ForcedAligner"] = None,
    ) -> None:
        self.writers, self.display, self.delivery, self.jsonl, self.out = writers, display, delivery, jsonl, out
        self.aligner = aligner
        self.transcript: list[str] = []  # committed utterances, for the copy key and --copy exit
        self._lock = threading.Lock()  # the decode thread adds, the key thread copies

    def __call__(self, event: Event) -> None:
        if event.type == "gap":
            self._gap(event)
        if event.type == "commit" and self.aligner is not None:
            event = with_words(event, self.aligner)
        line = dataclasses.replace(event, text=one_line(event.text))  # JSONL alone keeps the text as is
        if event.type == "commit":
            for writer in self.writers:  # on disk before it is on screen
                writer.write(line)
            with self._lock:
                self.transcript.append(line.text)
        if self.jsonl:
            self.out.write(event.to_json() + "\n")
            self.out.flush()
        elif event.type == "commit":
            self.display.commit(line.text)
        elif event.type == "partial":
            self.display.tentative(line.text)
        elif event.type == "speech":
            self.display.tentative("")
        if event.type == "commit":
            self.delivery.commit(line.text)

    def _gap(self, event: Event) -> None:
        seconds = event.end - event.start
        mark = dataclasses.replace(event, text=gap_mark(seconds))
        for writer in self.writers:
            writer.write(mark)
        if not self.jsonl:
            self.display.commit(mark.text)
        self.display.message(LOST_MESSAGE.format(seconds))

    def text(self) -> str:
        with self._lock:
            return "\n".join(self.transcript)


def with_words(commit: Event, aligner: "mq.ForcedAligner") -> Event:
    """The commit with each word's times in the session (the aligner's units: punctuation removed)."""
    segment = mq.Segment(0.0, len(commit.audio) / mq.SAMPLE_RATE, commit.text, commit.language)
    mq.align_segments([segment], commit.audio, aligner)
    words = tuple(
        mq.Word(w.text, round(commit.start + w.start, 3), round(commit.start + w.end, 3)) for w in segment.words
    )
    return dataclasses.replace(commit, words=words)
