"""Language names and their ISO-639-1 codes: one table for every family, each family's own list.

    "en" / "EN" / "english" / "English" -> "English"  (names in any case, codes)   "" / None -> None (detect)
    a family's Languages("Fun-ASR-Nano", ("Chinese", "English", "Japanese")).check("ko") -> one-line error
                                                                          naming that family's list

Cantonese has no ISO-639-1 code: its ISO-639-3 code "yue" is taken. Filipino takes "fil" (its
ISO-639-2 code) and "tl" (Tagalog's ISO-639-1 code, which Whisper clients send for it).
A name is put in canonical form as the official Qwen3-ASR code does (strip, first character upper-cased,
the rest lower-cased), so unusual case forms (a Kelvin sign for "K") are accepted or refused as there.
"""

from collections.abc import Sequence
from typing import Optional

CODES = {
    "zh": "Chinese", "en": "English", "yue": "Cantonese", "ar": "Arabic", "de": "German",
    "fr": "French", "es": "Spanish", "pt": "Portuguese", "id": "Indonesian", "it": "Italian",
    "ko": "Korean", "ru": "Russian", "th": "Thai", "vi": "Vietnamese", "ja": "Japanese",
    "tr": "Turkish", "hi": "Hindi", "ms": "Malay", "nl": "Dutch", "sv": "Swedish", "da": "Danish",
    "fi": "Finnish", "pl": "Polish", "cs": "Czech", "fil": "Filipino", "tl": "Filipino",
    "fa": "Persian", "el": "Greek", "ro": "Romanian", "hu": "Hungarian", "mk": "Macedonian",
}  # fmt: skip
NAMES = tuple(dict.fromkeys(CODES.values()))  # every language some family takes, by name
UNSPACED_LANGUAGES = ("Chinese", "Cantonese", "Japanese", "Thai")  # written without spaces between words


def canonical(value: Optional[str]) -> Optional[str]:
    """The name for a language name (any case) or code; None when not given. ValueError (one line) for
    text that is neither: which family takes which names is checked where the prompt is made."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    name = text[:1].upper() + text[1:].lower()
    if name in NAMES:
        return name
    if text.lower() in CODES:
        return CODES[text.lower()]
    raise ValueError(
        f"Unsupported language {value!r}: pass a language name (English) or its ISO-639-1 code (en), "
        "or None to let the model detect it."
    )


class Languages:
    """The languages one family can be told: its names in its order, each with its code."""

    def __init__(self, family: str, names: Sequence[str]):
        unknown = [name for name in names if name not in NAMES]
        assert not unknown, f"no code for {unknown}: add it to CODES"
        self.family, self.names = family, tuple(names)

    @property
    def codes(self) -> dict[str, str]:
        """code -> name for this family's languages ("en" -> "English"; Filipino has two codes)."""
        return {code: name for code, name in CODES.items() if name in self.names}

    def listing(self) -> str:
        """ "Chinese (zh), English (en), ..." in the family's order."""
        codes = {name: "/".join(c for c, n in CODES.items() if n == name) for name in self.names}
        return ", ".join(f"{name} ({codes[name]})" for name in self.names)

    def check(self, value: Optional[str]) -> Optional[str]:
        """The canonical name of `value` (a name in any case or a code) when this family takes it; None
        when not given; else ValueError, one line naming this family's list."""
        try:
            name = canonical(value)
        except ValueError:  # no language at all: this family's list is the answer too
            name = str(value)
        if name is not None and name not in self.names:
            raise ValueError(
                f"{self.family} cannot be told the language {value!r}: use one of {self.listing()}, "
                "or None to let the model detect it."
            )
        return name


def is_space_delimited(language: str) -> bool:
    """Whether words of `language` are written with spaces between them (False for Chinese, Cantonese,
    Japanese, Thai). For aligned words, whose language is the segment's; chunks join by script (text/script.py)."""
    key = language.strip().lower()
    return CODES.get(key, key.capitalize()) not in UNSPACED_LANGUAGES
