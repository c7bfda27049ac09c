"""What a decode is asked: the language, the context and the token budget, checked once.

Built at the boundary (keyword arguments of `transcribe` / `StreamingTranscriber`, CLI and app
flags, server fields) and passed down whole, so the layers below never re-check or re-normalise.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional, Union

from .tokenizer import normalize_language


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
