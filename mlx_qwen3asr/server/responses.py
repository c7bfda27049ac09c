"""A Transcription -> the body OpenAI's API returns for each response_format, and SSE events.

    json          {"text": ...}
    text          the text and a newline                      (text/plain)
    srt / vtt     subtitles, one cue per decoded chunk         (mlx_qwen3asr.outputs.formats.FORMATS)
    verbose_json  {"task", "language", "duration", "text", "segments": [{"id", "start", "end", "text",
                   "tokens", "temperature", "language"}]}, and with timestamp_granularities[]=word
                  "words": [{"word", "start", "end"}] (every segment's, in file time); a server started
                  with --diarize adds "speaker" to each segment and word
    diarized_json {"task", "duration", "text", "segments": [{"type": "transcript.text.segment", "id": "seg_0",
                   "start", "end", "text", "speaker"}], "usage": {"type": "duration", "seconds"}}
                  (the shape of OpenAI's gpt-4o-transcribe-diarize; --diarize servers only)
    stream=true   data: {"type": "transcript.text.delta", "delta": ...}  one per decoded chunk
                  (diarized_json: then one "transcript.text.segment" event per speaker segment, as above)
                  data: {"type": "transcript.text.done", "text": ...}
Speakers are pyannote's labels (SPEAKER_00, ...), where OpenAI's model says A, B, ...
`language` is the library's name ("English"; "English,German" when it changes; "" when unknown).
"""

import json
import math

from starlette.responses import JSONResponse, PlainTextResponse, Response

from mlx_qwen3asr.outputs.formats import FORMATS
from mlx_qwen3asr.result import Transcription

_TEXT_FORMATS = {"text": ("txt", "text/plain"), "srt": ("srt", "text/plain"), "vtt": ("vtt", "text/vtt")}


def render(result: Transcription, response_format: str, duration: float, words: bool = False) -> Response:
    if response_format == "json":
        return JSONResponse({"text": result.text})
    if response_format == "verbose_json":
        return JSONResponse(verbose(result, duration, words))
    if response_format == "diarized_json":
        return JSONResponse(diarized(result, duration))
    writer, media_type = _TEXT_FORMATS[response_format]
    return PlainTextResponse(FORMATS[writer](result), media_type=media_type)


def verbose(result: Transcription, duration: float, words: bool = False) -> dict:
    segments = [
        {"id": i, "start": round(s.start, 3), "end": round(s.end, 3), "text": s.text,
         "tokens": list(s.token_ids), "temperature": 0.0, "language": s.language, **_speaker(s)}
        for i, s in enumerate(result.segments)
    ]  # fmt: skip
    body = {"task": "transcribe", "language": result.language, "duration": round(duration, 3),
            "text": result.text, "segments": segments}  # fmt: skip
    if words:
        timed = [w for s in result.segments for w in s.words or []]
        body["words"] = [{"word": w.text, "start": w.start, "end": w.end, **_speaker(w)} for w in timed]
    return body


def diarized(result: Transcription, duration: float) -> dict:
    """OpenAI's diarized_json: the text, and one segment per stretch of one speaker."""
    usage = {"type": "duration", "seconds": math.ceil(duration)}  # what OpenAI bills: whole seconds
    return {"task": "transcribe", "duration": round(duration, 3), "text": result.text, "segments": segment_events(result),
            "usage": usage}  # fmt: skip


def segment_events(result: Transcription) -> list[dict]:
    """diarized_json's segments (those with text), which are also the stream's "transcript.text.segment" events."""
    spoken = [s for s in result.segments if s.text.strip()]
    return [{"type": "transcript.text.segment", "id": f"seg_{i}", "start": round(s.start, 3), "end": round(s.end, 3),
             "text": s.text, "speaker": s.speaker} for i, s in enumerate(spoken)]  # fmt: skip


def _speaker(item) -> dict:
    return {} if item.speaker is None else {"speaker": item.speaker}


def sse(event: dict) -> str:
    return f"data: {json.dumps(event, ensure_ascii=False)}\n\n"


def text_delta(delta: str) -> str:
    return sse({"type": "transcript.text.delta", "delta": delta})


def text_done(text: str) -> str:
    return sse({"type": "transcript.text.done", "text": text})
