"""A Transcription -> the body OpenAI's API returns for each response_format, and SSE events.

    json          {"text": ...}
    text          the text and a newline                      (text/plain)
    srt / vtt     subtitles, one cue per decoded chunk         (mlx_qwen3asr.formats.FORMATS)
    verbose_json  {"task", "language", "duration", "text", "segments": [{"id", "start", "end", "text",
                   "tokens", "temperature", "language"}]}, and with timestamp_granularities[]=word
                  "words": [{"word", "start", "end"}] (every segment's, in file time)
    stream=true   data: {"type": "transcript.text.delta", "delta": ...}  one per decoded chunk
                  data: {"type": "transcript.text.done", "text": ...}
`language` is the library's name ("English"; "English,German" when it changes; "" when unknown).
"""

import json

from starlette.responses import JSONResponse, PlainTextResponse, Response

import mlx_qwen3asr as mq
from mlx_qwen3asr.formats import FORMATS

_TEXT_FORMATS = {"text": ("txt", "text/plain"), "srt": ("srt", "text/plain"), "vtt": ("vtt", "text/vtt")}


def render(result: mq.Transcription, response_format: str, duration: float, words: bool = False) -> Response:
    if response_format == "json":
        return JSONResponse({"text": result.text})
    if response_format == "verbose_json":
        return JSONResponse(verbose(result, duration, words))
    writer, media_type = _TEXT_FORMATS[response_format]
    return PlainTextResponse(FORMATS[writer](result), media_type=media_type)


def verbose(result: mq.Transcription, duration: float, words: bool = False) -> dict:
    segments = [
        {"id": i, "start": round(s.start, 3), "end": round(s.end, 3), "text": s.text,
         "tokens": list(s.token_ids), "temperature": 0.0, "language": s.language}
        for i, s in enumerate(result.segments)
    ]  # fmt: skip
    body = {"task": "transcribe", "language": result.language, "duration": round(duration, 3),
            "text": result.text, "segments": segments}  # fmt: skip
    if words:
        timed = [w for s in result.segments for w in s.words or []]
        body["words"] = [{"word": w.text, "start": w.start, "end": w.end} for w in timed]
    return body


def sse(event: dict) -> str:
    return f"data: {json.dumps(event, ensure_ascii=False)}\n\n"


def text_delta(delta: str) -> str:
    return sse({"type": "transcript.text.delta", "delta": delta})


def text_done(text: str) -> str:
    return sse({"type": "transcript.text.done", "text": text})
