"""A live session's options from the WebSocket's query string, checked in one place (a bad one is an
APIError naming it): language, prompt, hotwords, engine, budgets, pause lengths, and the audio format the
client sends (rate, channels, numbered frames: live_frames.py)."""

import math
from dataclasses import dataclass
from typing import Optional

from mlx_qwen3asr.audio import SAMPLE_RATE
from mlx_qwen3asr.audio.samples import MAX_CHANNELS
from mlx_qwen3asr.options import DecodeOptions, hotword_list
from mlx_qwen3asr.streaming.segmenter import (
    MAX_UTTERANCE_SECONDS,
    MIN_MAX_UTTERANCE_SECONDS,
    MIN_PAUSE_SECONDS,
    PAUSE_SECONDS,
)

from .errors import APIError
from .languages import resolve_language
from .limits import capped_tokens
from .live_frames import ENCODINGS

ENGINES = ("live", "window")


@dataclass(frozen=True)
class LiveOptions:
    language: Optional[str]
    prompt: str
    encoding: str
    engine: str = "live"
    max_new_tokens: Optional[int] = None
    pause: float = PAUSE_SECONDS
    max_utterance: float = MAX_UTTERANCE_SECONDS
    hotwords: tuple[str, ...] = ()  # the `hotwords` query parameter: a comma-separated list
    sample_rate: int = SAMPLE_RATE  # of the frames sent; the session resamples to 16 kHz
    channels: int = 1  # interleaved in each frame
    numbered: bool = False  # each frame opens with the index of its first sample (live_frames.py)

    def decode_options(self, server_cap: Optional[int], chunk_seconds: float) -> DecodeOptions:
        """What the session decodes with; `chunk_seconds`: the served model's longest chunk (limits.py)."""
        tokens = capped_tokens(self.max_new_tokens, server_cap, chunk_seconds)
        return DecodeOptions(self.language, self.prompt, tokens, self.hotwords)


def _number(query, name: str, default: float, minimum: float, integer: bool = False, maximum=math.inf) -> float:
    text = query.get(name)
    if text is None:
        return default
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        value = math.nan
    if not minimum <= value <= maximum or math.isinf(value):
        kind = "a whole number" if integer else "a number of seconds"
        most = "" if math.isinf(maximum) else f" and at most {maximum:g}"
        raise APIError(400, f"{name} must be {kind}, at least {minimum:g}{most}; got {text!r}", param=name)
    return value


def _audio_format(query, engine: str) -> tuple[int, int, bool]:
    """(sample_rate, channels, numbered) of the frames the client will send."""
    rate = _number(query, "sample_rate", SAMPLE_RATE, 8000, True, 384000)  # telephone to studio rates
    channels = _number(query, "channels", 1, 1, True, MAX_CHANNELS)
    if (numbered := query.get("numbered", "false")) not in ("true", "false"):
        raise APIError(400, f"numbered must be true or false, got {numbered!r}", param="numbered")
    if engine == "window" and (channels != 1 or numbered == "true"):
        raise APIError(400, "engine=window takes unnumbered mono frames: use engine=live", param="engine")
    return rate, channels, numbered == "true"


def live_options(query) -> LiveOptions:
    """The session's options from the query string; a bad one is an APIError naming it. The prompt is
    checked against the model by check_prompt, off the event loop."""
    encoding = query.get("encoding", "pcm16")
    if encoding not in ENCODINGS:
        raise APIError(400, f"Unsupported encoding {encoding!r}: use pcm16 or float32", param="encoding")
    engine = query.get("engine", "live")
    if engine not in ENGINES:
        raise APIError(400, f"Unknown engine {engine!r}: use live (utterances, the default) or window", param="engine")
    options = LiveOptions(
        resolve_language(query.get("language")),
        query.get("prompt", ""),
        encoding,
        engine,
        _number(query, "max_new_tokens", None, 1, integer=True),
        _number(query, "pause", PAUSE_SECONDS, MIN_PAUSE_SECONDS),
        _number(query, "max_utterance", MAX_UTTERANCE_SECONDS, MIN_MAX_UTTERANCE_SECONDS),
        hotword_list(query.get("hotwords", "")),
        *_audio_format(query, engine),
    )
    return options
