"""The decode's tail, written once: token ids -> text -> (language, text) -> the echo guard.

    token ids -> tokenizer.decode (special tokens skipped; `<asr_text>` is not one)
    -> the model's own parser: parse_output (the official parse of a whole answer) or parse_partial
       (append-only: the text of a prefix of the ids is a prefix of this one; a streaming window's)
    -> with the audio it came from: text that only repeats the prompt's context over audio without
       speech becomes "" (decode/echo.py)

Offline chunks (decode/transcribe.py), live finals that reuse the partials' work (streaming/utterances.py)
and the window engine (streaming/transcriber.py) all read their tokens here, so a live commit is
read exactly as offline transcription reads the same tokens.
"""

from collections.abc import Sequence
from typing import NamedTuple, Optional, Protocol

import numpy as np

from ..options import DecodeOptions
from ..text.tokenizer import Tokenizer
from .echo import is_context_echo


class Reader(Protocol):
    """What reads ids as text: the model (or the engine that holds it; tests pass fakes)."""

    tokenizer: Tokenizer

    def parse_output(self, raw: str, forced_language: Optional[str] = None) -> tuple[str, str]: ...

    def parse_partial(self, raw: str, forced_language: Optional[str] = None) -> tuple[str, str]: ...


class Answer(NamedTuple):
    language: str  # "" while unknown; the forced language when one was forced
    text: str
    context_echo: bool = False  # the text only repeated the context over audio without speech: now ""


def read_answer(reader: Reader, ids: Sequence[int], forced_language: Optional[str] = None) -> tuple[str, str]:
    """(language, text) of a whole answer's ids, as the official parse gives them."""
    return reader.parse_output(reader.tokenizer.decode(list(ids), skip_special_tokens=True), forced_language)


def read_partial(reader: Reader, ids: Sequence[int], forced_language: Optional[str] = None) -> tuple[str, str]:
    """(language, text) of an answer so far, by the model's append-only parser."""
    return reader.parse_partial(reader.tokenizer.decode(list(ids), skip_special_tokens=True), forced_language)


def heard_answer(reader: Reader, ids: Sequence[int], options: DecodeOptions, wave: np.ndarray) -> Answer:
    """The answer of a decode of `wave` under `options`, its text "" when it only echoes the prompt's
    context (and hotwords) over audio without speech."""
    language, text = read_answer(reader, ids, options.language)
    if is_context_echo(text, options.prompt_text, wave):  # decode/echo.py: never silently (context_echo says so)
        return Answer(language, "", True)
    return Answer(language, text)
