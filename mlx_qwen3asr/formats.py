"""Transcript writers: a `Transcription` -> the text of a .txt, .json, .srt or .vtt file.

    FORMATS["srt"](result) -> "1\\n00:00:00,000 --> 00:00:04,200\\nHello.\\n\\n2\\n..."

Subtitles get one cue per segment (its start/end in seconds); segments without text are left out.
Non-empty outputs end with a newline. A leaf module: stdlib only.
"""

import json
from typing import Callable

from .result import Segment, Transcription


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


def _cues(result: Transcription, separator: str) -> list[tuple[str, str]]:
    """(timing line, text) for each segment that has text."""
    cues = []
    for segment in result.segments:
        text = _cue_text(segment)
        if text:
            start = _timestamp(segment.start, separator)
            end = _timestamp(segment.end, separator)
            cues.append((f"{start} --> {end}", text))
    return cues


def format_txt(result: Transcription) -> str:
    return result.text.strip() + "\n"


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
        }
        for segment in result.segments
    ]
    document = {"text": result.text, "language": result.language, "segments": segments}
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def format_srt(result: Transcription) -> str:
    cues = _cues(result, ",")
    return "\n".join(f"{n}\n{timing}\n{text}\n" for n, (timing, text) in enumerate(cues, start=1))


def format_vtt(result: Transcription) -> str:
    cues = _cues(result, ".")
    return "WEBVTT\n" + "".join(f"\n{timing}\n{text}\n" for timing, text in cues)


FORMATS: dict[str, Callable[[Transcription], str]] = {
    "txt": format_txt,
    "json": format_json,
    "srt": format_srt,
    "vtt": format_vtt,
}
