"""What a decode is asked: the language, the context, the hotwords and the token budget, checked once.

Built at the boundary (keyword arguments of `transcribe` / `StreamingTranscriber`, CLI and app
flags, server fields) and passed down whole, so the layers below never re-check or re-normalise.

The language is a name in any case or an ISO-639-1 code ("en", "English", "english" -> "English");
which languages a model takes is its family's list (model.languages).
The context is free text (names, terms, topic, earlier conversation): text, or a file
(`--context-file`). Hotwords are terms to recognise (`--hotwords`: a file, one term a line, or a
comma-separated list); each family puts them where its prompt has room for them (Fun-ASR-Nano: the
official hotword block; Qwen3-ASR: one comma-separated line after the context). The official
service documents contexts of up to 10,000 tokens: longer ones (hotwords included) are refused (each family
states its limit: model.max_context_tokens).

`DecodeOptions.check(model)` is the one check against a model, made once on each road, where the
options meet it (the front doors: transcribe / transcribe_batch, FolderSpec.loaded for the CLI and
folder runs, the app, a live session, a server request); the engine behind them
(transcribe.transcribe_checked) does not check again. A language its family does not take, the audio
placeholder in the context or hotwords, a context over the limit -> ValueError, one line, before any
audio is decoded.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Union

from .text.languages import canonical

if TYPE_CHECKING:
    from .families.recogniser import Recogniser


def token_budget(seconds: float) -> int:
    """New tokens allowed for a clip: generous for fast speech (~15 tokens/s) plus the language header."""
    return 32 + int(15 * seconds + 0.999)


class OptionError(ValueError):
    """An option a model cannot be asked (DecodeOptions.check): `option` names it, "language" or "context"."""

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class DecodeOptions:
    """language: force the output language (a name in any case, or its ISO-639-1 code; None or "" lets
    the model detect it); context: free text (names, terms) given to the model (None = none);
    max_new_tokens: tokens per decoded chunk (None: token_budget of the chunk's duration);
    hotwords: terms to recognise, in order (blank and repeated ones dropped)."""

    language: Optional[str] = None
    context: str = ""
    max_new_tokens: Optional[int] = None
    hotwords: tuple[str, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "language", canonical(self.language))
        object.__setattr__(self, "hotwords", checked_hotwords(self.hotwords))
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
        hotwords: Optional[str] = None,
    ) -> "DecodeOptions":
        """Options whose context is `context`, then the text of `context_file`, joined by a newline, and
        whose hotwords are `hotwords`: a file's terms (one a line) or a comma-separated list. A file that
        cannot be read raises ValueError naming it."""
        parts = [context or ""]
        if context_file is not None:
            parts.append(read_text(context_file, "--context-file").strip())
        terms = read_hotwords(hotwords) if hotwords is not None else ()
        return cls(language, "\n".join(part for part in parts if part), max_new_tokens, tuple(terms))

    @classmethod
    def either(
        cls,
        options: Optional["DecodeOptions"],
        language: Optional[str] = None,
        context: Optional[str] = "",
        max_new_tokens: Optional[int] = None,
        hotwords: Sequence[str] = (),
    ) -> "DecodeOptions":
        """`options` when given, else options from the loose keywords (transcribe's); both is a ValueError."""
        if options is None:
            return cls(language, context, max_new_tokens, checked_hotwords(hotwords or ()))
        if (language, context or "", max_new_tokens, tuple(hotwords or ())) != (None, "", None, ()):
            raise ValueError("pass either options= or language/context/max_new_tokens/hotwords, not both")
        if not isinstance(options, DecodeOptions):
            raise TypeError(
                f"options must be a DecodeOptions, got {type(options).__name__}: pass mq.DecodeOptions(...)"
            )
        return options

    @property
    def prompt_text(self) -> str:
        """The context and the hotwords as one text (for the length limit and the echo check)."""
        return "\n".join(part for part in (self.context, ", ".join(self.hotwords)) if part)

    def check(self, model: "Recogniser") -> "DecodeOptions":
        """These options when `model` can be asked them, else OptionError (a ValueError, one line): a
        language its family does not take (model.languages), the audio placeholder in the context or the
        hotwords, or a context and hotwords longer than its family's max_context_tokens of its tokenizer's tokens."""
        try:
            model.languages.check(self.language)
        except ValueError as e:
            raise OptionError("language", str(e)) from e
        tokenizer = model.tokenizer
        if tokenizer.audio_token in self.prompt_text:  # the official processors fail on a second one
            raise OptionError("context", f"context and hotwords must not contain {tokenizer.audio_token!r}: remove it")
        tokens = len(tokenizer.encode(self.prompt_text)) if self.prompt_text else 0
        if tokens > model.max_context_tokens:
            raise OptionError(
                "context",
                f"the context is {tokens} tokens; the model takes at most {model.max_context_tokens}: "
                "shorten it (or the hotword list)",
            )
        return self


def read_text(path: PathLike, what: str) -> str:
    """A UTF-8 text file's content; ValueError naming the file and the fix when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{what} {path} is not UTF-8 text: save it as UTF-8") from e
    except OSError as e:
        raise ValueError(f"{what} {path} cannot be read ({e.strerror or e}): pass a readable text file") from e


def read_hotwords(source: Union[str, PathLike]) -> list[str]:
    """The terms of `source`: a file (one term a line), else a comma-separated list ("Qwen, MLX");
    surrounding spaces and blank terms dropped, the first of repeated terms kept. A file is one that
    exists, or text without a comma that reads as a path (a "/" in it, or a .txt name): a missing
    file is then refused, not taken as a hotword."""
    text = str(source)
    if Path(source).is_file() or ("," not in text and ("/" in text or text.lower().endswith(".txt"))):
        return list(checked_hotwords(read_text(source, "--hotwords").splitlines()))
    return list(hotword_list(str(source)))


def hotword_list(text: str) -> tuple[str, ...]:
    """The terms of a comma-separated list ("Qwen, MLX" -> ("Qwen", "MLX")); "" -> ()."""
    return checked_hotwords(text.split(","))


def checked_hotwords(terms: Union[str, Sequence[str]]) -> tuple[str, ...]:
    """Hotwords as a tuple of terms in order: stripped, blank and repeated ones dropped. A bare string
    is refused (it would be read letter by letter): pass a list, or read_hotwords for "a, b"."""
    if isinstance(terms, str):
        raise TypeError(f"hotwords must be a list of terms, got the text {terms!r}: pass [{terms!r}]")
    for term in terms:
        if not isinstance(term, str):
            raise TypeError(f"hotwords must be text, got {type(term).__name__}: pass a list of str")
    return tuple(dict.fromkeys(term.strip() for term in terms if term.strip()))


def options_per_input(n: int, options: Union[DecodeOptions, Sequence[DecodeOptions], None]) -> list[DecodeOptions]:
    """One DecodeOptions per input, from `options`: one for all (None: DecodeOptions()), or a list of n."""
    if options is None or isinstance(options, DecodeOptions):
        return [options or DecodeOptions()] * n
    values = list(options)
    if len(values) != n:
        raise ValueError(f"options: got {len(values)} values for {n} inputs: pass one DecodeOptions, or one per input")
    for value in values:
        if not isinstance(value, DecodeOptions):
            raise TypeError(f"options must be DecodeOptions, got {type(value).__name__}: pass mq.DecodeOptions(...)")
    return values
