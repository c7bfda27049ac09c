"""What a decode is asked: the language, the context and the token budget, checked once.

Built at the boundary (keyword arguments of `transcribe` / `StreamingTranscriber`, CLI and app
flags, server fields) and passed down whole, so the layers below never re-check or re-normalise.

The context is the model's system prompt: free text (names, terms, topic, earlier conversation).
Users write it as text, a file (`--context-file`), or a hotword list (`--hotwords`, one term a
line), which becomes one comma-separated line as in the official tooling's example
(`-c "Qwen-ASR, DashScope, FFmpeg"`); the parts are joined by newlines. The official service
documents contexts of up to 10,000 tokens: longer ones are refused before any audio is decoded
(`DecodeOptions.check_context`).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Optional, Union

from .tokenizer import Tokenizer, normalize_language

MAX_CONTEXT_TOKENS = 10_000  # the official service's documented limit for a Qwen3-ASR context


def token_budget(seconds: float) -> int:
    """New tokens allowed for a clip: generous for fast speech (~15 tokens/s) plus the language header."""
    return 32 + int(15 * seconds + 0.999)


@dataclass(frozen=True)
class DecodeOptions:
    """language: force the output language (any case; None or "" lets the model detect it);
    context: free text (names, terms) given to the model as its system prompt (None = none);
    max_new_tokens: tokens per decoded chunk (None: token_budget of the chunk's duration)."""

    language: Optional[str] = None
    context: str = ""
    max_new_tokens: Optional[int] = None

    def __post_init__(self):
        object.__setattr__(self, "language", normalize_language(self.language))
        context = "" if self.context is None else self.context
        if not isinstance(context, str):
            raise TypeError(f"context must be text, got {type(context).__name__}: pass a str (or None)")
        object.__setattr__(self, "context", context)
        tokens = self.max_new_tokens
        if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1):
            raise ValueError(f"max_new_tokens must be a positive integer (or None for the default), got {tokens!r}")

    def budget(self, seconds: float) -> int:
        """Tokens allowed for `seconds` of audio."""
        return self.max_new_tokens if self.max_new_tokens is not None else token_budget(seconds)

    @classmethod
    def from_files(
        cls,
        language: Optional[str] = None,
        context: Optional[str] = "",
        max_new_tokens: Optional[int] = None,
        *,
        context_file: Optional[PathLike] = None,
        hotwords_file: Optional[PathLike] = None,
    ) -> "DecodeOptions":
        """Options whose context is `context`, then the text of `context_file`, then the terms of
        `hotwords_file` (one a line) as one comma-separated line, joined by newlines. A file that
        cannot be read raises ValueError naming it."""
        parts = [context or ""]
        if context_file is not None:
            parts.append(read_text(context_file, "--context-file").strip())
        if hotwords_file is not None:
            parts.append(hotwords_context(read_hotwords(hotwords_file)))
        return cls(language, "\n".join(part for part in parts if part), max_new_tokens)

    def check_context(self, tokenizer: Tokenizer) -> None:
        """ValueError (one line) when the context is longer than MAX_CONTEXT_TOKENS tokens."""
        tokens = len(tokenizer.encode(self.context)) if self.context else 0
        if tokens > MAX_CONTEXT_TOKENS:
            raise ValueError(
                f"the context is {tokens} tokens; the model takes at most {MAX_CONTEXT_TOKENS}: "
                "shorten it (or the hotword list)"
            )


def read_text(path: PathLike, what: str) -> str:
    """A UTF-8 text file's content; ValueError naming the file and the fix when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{what} {path} is not UTF-8 text: save it as UTF-8") from e
    except OSError as e:
        raise ValueError(f"{what} {path} cannot be read ({e.strerror or e}): pass a readable text file") from e


def read_hotwords(path: PathLike) -> list[str]:
    """The terms of a hotword file: one a line, surrounding spaces and blank lines dropped, the
    first of repeated terms kept."""
    terms = (line.strip() for line in read_text(path, "--hotwords").splitlines())
    return list(dict.fromkeys(term for term in terms if term))


def hotwords_context(terms: Sequence[str]) -> str:
    """The context for a hotword list: the terms in order, comma-separated ("Qwen, MLX, Zürich")."""
    return ", ".join(term.strip() for term in terms if term.strip())


def options_per_input(
    n: int,
    options: Union[DecodeOptions, Sequence[DecodeOptions], None],
    language: Union[Optional[str], Sequence[Optional[str]]],
    context: Union[Optional[str], Sequence[Optional[str]]],
    max_new_tokens: Optional[int],
) -> list[DecodeOptions]:
    """One DecodeOptions per input, from `options` (one for all, or a list) or from the loose keyword
    arguments (language and context: one value for all, or a list with one per input)."""
    if options is not None:
        if (language, context or "", max_new_tokens) != (None, "", None):
            raise ValueError("pass either options= or language/context/max_new_tokens, not both")
        return _per_input(options, n, "options", DecodeOptions)
    languages, contexts = _per_input(language, n, "language", str), _per_input(context, n, "context", str)
    return [DecodeOptions(lang, text, max_new_tokens) for lang, text in zip(languages, contexts)]


def _per_input(value, n: int, name: str, single: type) -> list:
    """`value` for each of n inputs: a list of n values as given, one value repeated."""
    if value is None or isinstance(value, single):
        return [value] * n
    values = list(value)
    if len(values) != n:
        raise ValueError(f"{name}: got {len(values)} values for {n} inputs: pass one value, or one per input")
    return values
