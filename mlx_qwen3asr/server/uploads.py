"""A multipart transcription request -> checked fields + a 16 kHz waveform.

    multipart form (file, model, language, prompt, response_format, stream, temperature,
                    timestamp_granularities[]) -> TranscriptionRequest   (APIError 400 naming the field)
    uploaded bytes -> temp file (the library reads WAV itself, anything else with ffmpeg)
                   -> mq.prepare_audio(max_seconds=--max-audio-seconds) -> float32 [n]
                      (empty / unreadable / too long / NaN -> APIError 400; ffmpeg reads that file only)

Clients send bytes, never paths: a text value in `file` is refused. Unknown fields (OpenAI has many
that only apply to its own models) are ignored; `model` is accepted whatever it names, as one model
is served.
"""

import logging
import os
import re
import tempfile
from dataclasses import dataclass
from typing import Optional

import numpy as np
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request

from mlx_qwen3asr.audio import prepare_audio
from mlx_qwen3asr.audio.ffmpeg import UndecodableAudio
from mlx_qwen3asr.options import hotword_list

from .errors import APIError
from .languages import resolve_language

RESPONSE_FORMATS = ("json", "text", "srt", "vtt", "verbose_json", "diarized_json")
SPEAKER_FORMATS = ("srt", "vtt", "verbose_json", "diarized_json")  # what carries speakers on a --diarize server
GRANULARITIES = ("segment", "word")
_SAFE_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,8}$")
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}


@dataclass
class TranscriptionRequest:
    audio: bytes
    filename: str
    language: Optional[str]  # a library language name; None: detect
    prompt: str
    response_format: str
    hotwords: tuple[str, ...]  # the `hotwords` field: a comma-separated list
    stream: bool
    words: bool  # timestamp_granularities[] has "word"

    def speakers(self, has_diarizer: bool) -> bool:
        """Whether the answer carries speakers: a --diarize server, a format with segments, not streamed text."""
        return has_diarizer and self.response_format in SPEAKER_FORMATS


async def read_request(request: Request, has_aligner: bool = False, has_diarizer: bool = False) -> TranscriptionRequest:
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise APIError(400, "Send the audio as multipart/form-data with a `file` part", param="file")
    form = await request.form(max_files=1, max_fields=64)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        given = "a text value" if upload is not None else "nothing"
        raise APIError(400, f"`file` must be an uploaded audio file (a multipart file part), got {given}; "
                            "file paths are not accepted", param="file")  # fmt: skip
    response_format = _text(form, "response_format") or "json"
    if response_format not in RESPONSE_FORMATS:
        raise APIError(400, f"Unsupported response_format {response_format!r}: use one of "
                            f"{', '.join(RESPONSE_FORMATS)}", param="response_format")  # fmt: skip
    if response_format == "diarized_json" and not has_diarizer:
        raise APIError(400, "response_format=diarized_json needs a speaker diarizer: start the server with --diarize "
                            "(pyannote/speaker-diarization-community-1)", param="response_format")  # fmt: skip
    words = "word" in _granularities(form)
    if words and not has_aligner:
        raise APIError(400, "Word timestamps need a forced aligner: start the server with --aligner "
                            "(e.g. Qwen/Qwen3-ForcedAligner-0.6B), or ask for segment timestamps",
                       param="timestamp_granularities")  # fmt: skip
    if words and response_format != "verbose_json":
        raise APIError(
            400, "Word timestamps come in response_format=verbose_json only", param="timestamp_granularities"
        )
    _check_temperature(_text(form, "temperature"))
    return TranscriptionRequest(
        audio=await upload.read(),
        filename=os.path.basename(upload.filename or "audio"),
        language=resolve_language(_text(form, "language")),
        prompt=_text(form, "prompt") or "",
        hotwords=hotword_list(_text(form, "hotwords") or ""),
        response_format=response_format,
        stream=_boolean(_text(form, "stream"), "stream"),
        words=words,
    )


def decode_audio(data: bytes, filename: str, max_seconds: Optional[float] = None) -> np.ndarray:
    """Uploaded bytes -> 16 kHz mono float32 (blocking: ffmpeg may run; call it off the event loop).
    What ffmpeg logged stays on the server: its lines hold heap addresses and internal names."""
    if not data:
        raise APIError(400, f"The uploaded file {filename!r} is empty (0 bytes)", param="file")
    match = _SAFE_SUFFIX.search(filename)
    with tempfile.TemporaryDirectory(prefix="mlx-qwen3asr-upload-") as folder:
        path = os.path.join(folder, "upload" + (match.group(0) if match else ""))
        with open(path, "wb") as f:
            f.write(data)
        try:
            wave = prepare_audio(path, max_seconds=max_seconds)
        except UndecodableAudio as e:
            logging.getLogger("mlx_qwen3asr.server").info("%r: %s", filename, str(e).replace(path, "upload"))
            message = f"The uploaded file {filename!r} is not audio the server can decode: send WAV, mp3, m4a, ogg, flac or webm"
            raise APIError(400, message, param="file", code="invalid_audio") from e
        except (ValueError, TypeError) as e:
            message = str(e).replace(path, repr(filename))
            raise APIError(400, message, param="file", code="invalid_audio") from e
    if wave.size == 0:
        raise APIError(
            400, f"The uploaded file {filename!r} holds no audio samples", param="file", code="invalid_audio"
        )
    return wave


def _text(form: FormData, name: str) -> Optional[str]:
    value = form.get(name)
    if isinstance(value, UploadFile):
        raise APIError(400, f"`{name}` must be a text field, not a file", param=name)
    return value


def _granularities(form: FormData) -> list[str]:
    values = form.getlist("timestamp_granularities[]") + form.getlist("timestamp_granularities")
    for value in values:
        if value not in GRANULARITIES:
            raise APIError(
                400,
                f"Unsupported timestamp granularity {value!r}: use segment or word",
                param="timestamp_granularities",
            )
    return values


def _boolean(value: Optional[str], name: str) -> bool:
    if value is None:
        return False
    if value.strip().lower() not in _BOOLEANS:
        raise APIError(400, f"`{name}` must be true or false, got {value!r}", param=name)
    return _BOOLEANS[value.strip().lower()]


def _check_temperature(value: Optional[str]) -> None:
    """Decoding is greedy (temperature 0); any valid temperature is accepted and has no effect."""
    if value is None:
        return
    try:
        valid = 0.0 <= float(value) <= 1.0  # NaN compares False: refused too
    except ValueError:
        valid = False
    if not valid:
        raise APIError(400, f"`temperature` must be a number from 0 to 1, got {value!r}", param="temperature")
