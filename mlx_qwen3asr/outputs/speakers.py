"""Speakers in a transcript: a Transcription + a Diarization -> words and segments carrying `.speaker`.

    word -> the speaker whose turns overlap it most (ties: the speaker first reached in turn order);
            no overlap (a pause, a zero-length word) -> the speaker of the nearest turn
    segment with words -> split where the word speaker changes: each piece keeps the segment's fields, its
            words, their text joined by formats.join_words, and runs from the segment's start (first piece)
            or its first word's start to the next piece's start (or the segment's end)
    segment without words (no aligner) -> one speaker: greatest overlap, else nearest
Pure functions over the result types; nothing here runs a model.
"""

from collections.abc import Callable
from dataclasses import replace
from typing import Optional, Protocol

from ..audio.io import AudioInput
from ..families.pyannote.turns import Diarization, Turn
from ..result import Segment, Transcription, Word
from .words import join_words


class SpeakerDiarizer(Protocol):
    """What transcription asks a diarizer (families/pyannote/pipeline.py's Diarizer): who spoke when."""

    def diarize(self, audio: AudioInput, on_progress: Optional[Callable[[float], None]] = None) -> Diarization: ...


def speaker_of(start: float, end: float, turns: list[Turn]) -> Optional[str]:
    """The speaker with the most overlap with [start, end], else the one of the nearest turn (None: no turns)."""
    if not turns:
        return None
    overlap: dict[str, float] = {}
    for turn in turns:
        shared = min(end, turn.end) - max(start, turn.start)
        if shared > 0:
            overlap[turn.speaker] = overlap.get(turn.speaker, 0.0) + shared
    if overlap:
        return max(overlap, key=lambda speaker: overlap[speaker])  # first maximum: the earliest speaker
    middle = (start + end) / 2
    return min(turns, key=lambda t: max(t.start - middle, middle - t.end, 0.0)).speaker


def _pieces(segment: Segment, words: list[Word]) -> list[Segment]:
    runs: list[list[Word]] = []
    for word in words:
        if runs and runs[-1][-1].speaker == word.speaker:
            runs[-1].append(word)
        else:
            runs.append([word])
    if len(runs) == 1:
        return [replace(segment, words=words, speaker=words[0].speaker)]
    starts = [segment.start] + [run[0].start for run in runs[1:]]
    ends = starts[1:] + [segment.end]
    return [
        replace(
            segment,
            start=start,
            end=end,
            text=join_words(run, segment.language),
            words=run,
            speaker=run[0].speaker,
            token_ids=segment.token_ids if i == 0 else [],  # the decoded ids stay with the first piece
        )
        for i, (run, start, end) in enumerate(zip(runs, starts, ends))
    ]


def with_speakers(result: Transcription, diarization: Diarization) -> Transcription:
    """The transcript with a speaker on every word and segment, segments split where the speaker changes."""
    turns = diarization.turns
    segments: list[Segment] = []
    for segment in result.segments:
        if not segment.words:
            segments.append(replace(segment, speaker=speaker_of(segment.start, segment.end, turns)))
            continue
        words = [replace(w, speaker=speaker_of(w.start, w.end, turns)) for w in segment.words]
        segments += _pieces(segment, words)
    return replace(result, segments=segments)
