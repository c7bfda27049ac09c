"""Transcript writers: a `Transcription` -> the text of a .txt, .json, .srt or .vtt file.

    FORMATS["srt"](result) -> "1\\n00:00:00,000 --> 00:00:04,200\\nHello.\\n\\n2\\n..."
    render(result, "srt", timestamps="word") -> one cue per aligned word
    render(result, "srt", layout=SubtitleLayout(max_line_width=42, max_line_count=2)) -> outputs/subtitles.py's cues

Subtitles get one cue per segment (its start/end in seconds); segments without text are left out.
A segment with words (transcribe(..., aligner=)) is cut into word-timed cues instead: words are
added to a cue until it would pass MAX_CUE_CHARS or MAX_CUE_SECONDS, and a pause of PAUSE_SECONDS
or more between two words always starts a new cue. `timestamps="word"` gives every word its own cue;
words of zero length (start == end) are kept, with a cue of zero length. JSON lists the words.
With speakers (transcribe(..., diarizer=)): SRT cues start with "[SPEAKER_00] ", WebVTT cues with a voice
tag "<v SPEAKER_00>", JSON segments and words carry "speaker"; segments are already split at speaker changes.
Non-empty outputs end with a newline. Imports only the result types and the spacing rules (stdlib + tokenizers).
"""

import json
from collections.abc import Callable
from typing import Optional

from ..result import Segment, Transcription, Word
from .subtitles import SubtitleLayout
from .words import join_words

MAX_CUE_CHARS = 42  # a common subtitle line limit
MAX_CUE_SECONDS = 7.0
PAUSE_SECONDS = 1.0  # a silence at least this long between two words ends a cue
TIMESTAMPS = ("segment", "word")  # cues per segment (word-timed lines when aligned), or one per word


def _timestamp(seconds: float, separator: str) -> str:
    """12.5 -> "00:00:12,500"; hours keep counting past 99 ("100:00:00,000")."""
    millis = max(0, round(seconds * 1000))
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{millis:03d}"


def _cue_text(segment: Segment) -> str:
    # A blank line ends a cue in both SRT and WebVTT, so blank lines inside the text are dropped.
    return "\n".join(line for line in segment.text.strip().splitlines() if line.strip())


def group_words(words: list[Word], language: str) -> list[list[Word]]:
    """Readable cues: at most MAX_CUE_CHARS and MAX_CUE_SECONDS each, never across a long pause."""
    groups: list[list[Word]] = []
    for word in words:
        current = groups[-1] if groups else None
        if (
            current is None
            or word.start - current[-1].end >= PAUSE_SECONDS
            or word.end - current[0].start > MAX_CUE_SECONDS
            or len(join_words(current + [word], language)) > MAX_CUE_CHARS
        ):
            groups.append([word])
        else:
            current.append(word)
    return groups


def _cues(
    result: Transcription, separator: str, timestamps: str = "segment", layout: Optional[SubtitleLayout] = None
) -> list[tuple[str, str, Optional[str]]]:
    """(timing line, text, speaker) for each cue: a segment with text, a group of its words, or `layout`'s cue."""
    if timestamps not in TIMESTAMPS:
        raise ValueError(f"timestamps must be one of {', '.join(TIMESTAMPS)}, got {timestamps!r}")
    if layout is not None and timestamps == "word":
        raise ValueError("--timestamps word gives one cue per word: leave out the subtitle line limits")
    spans: list[tuple[float, float, str, Optional[str]]] = [] if layout is None else list(layout.cues(result))
    for segment in result.segments if layout is None else []:
        text = _cue_text(segment)
        if not text:
            continue
        if segment.words is None and timestamps == "word":
            raise ValueError("word timestamps need aligned words: transcribe with an aligner (--aligner)")
        if not segment.words:  # not aligned, or no alignable word: the segment's own cue
            spans.append((segment.start, segment.end, text, segment.speaker))
            continue
        groups = [[w] for w in segment.words] if timestamps == "word" else group_words(segment.words, segment.language)
        spans += [(g[0].start, g[-1].end, join_words(g, segment.language), segment.speaker) for g in groups]
    return [(f"{_timestamp(start, separator)} --> {_timestamp(end, separator)}", text, speaker)
            for start, end, text, speaker in spans]  # fmt: skip


def format_txt(result: Transcription) -> str:
    return result.text.strip() + "\n"


def _speaker_json(item) -> dict:
    return {} if item.speaker is None else {"speaker": item.speaker}


def _word_json(word: Word) -> dict:
    return {"text": word.text, "start": round(word.start, 3), "end": round(word.end, 3), **_speaker_json(word)}


def format_json(result: Transcription) -> str:
    segments = [
        {
            "start": round(segment.start, 3),
            "end": round(segment.end, 3),
            "text": segment.text,
            "language": segment.language,
            "finish_reason": segment.finish_reason,
            "hit_token_budget": segment.hit_token_budget,
            "repetition_trimmed": segment.repetition_trimmed,
            "context_echo": segment.context_echo,
            **_speaker_json(segment),
            **({} if segment.words is None else {"words": [_word_json(w) for w in segment.words]}),
        }
        for segment in result.segments
    ]
    document = {"text": result.text, "language": result.language, "segments": segments}
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def format_srt(result: Transcription, timestamps: str = "segment", layout: Optional[SubtitleLayout] = None) -> str:
    cues = _cues(result, ",", timestamps, layout)
    return "\n".join(
        f"{n}\n{timing}\n{'' if speaker is None else f'[{speaker}] '}{text}\n"
        for n, (timing, text, speaker) in enumerate(cues, start=1)
    )


def format_vtt(result: Transcription, timestamps: str = "segment", layout: Optional[SubtitleLayout] = None) -> str:
    cues = _cues(result, ".", timestamps, layout)
    return "WEBVTT\n" + "".join(
        f"\n{timing}\n{'' if speaker is None else f'<v {speaker}>'}{text}\n" for timing, text, speaker in cues
    )


FORMATS: dict[str, Callable[..., str]] = {
    "txt": format_txt,
    "json": format_json,
    "srt": format_srt,
    "vtt": format_vtt,
}


def render(
    result: Transcription, fmt: str, timestamps: str = "segment", layout: Optional[SubtitleLayout] = None
) -> str:
    """The file text in format `fmt`; `timestamps` and `layout` (outputs/subtitles.py) choose the subtitle cues
    (txt and json ignore them)."""
    if fmt in ("srt", "vtt"):
        return FORMATS[fmt](result, timestamps, layout)
    return FORMATS[fmt](result)
