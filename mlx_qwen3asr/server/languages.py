"""Language field -> the library's language name: ISO-639-1 codes ("en") and names in any case.

    "en" / "EN" / "english" / "English" -> "English";  "" -> None (detect);  "xx" -> APIError 400

Cantonese has no ISO-639-1 code: its ISO-639-3 code "yue" is taken. Filipino takes "fil" (its
ISO-639-2 code) and "tl" (Tagalog's ISO-639-1 code, which Whisper clients send for it).
"""

from typing import Optional

import mlx_qwen3asr as mq

from .errors import APIError

CODES = {
    "zh": "Chinese", "en": "English", "yue": "Cantonese", "ar": "Arabic", "de": "German",
    "fr": "French", "es": "Spanish", "pt": "Portuguese", "id": "Indonesian", "it": "Italian",
    "ko": "Korean", "ru": "Russian", "th": "Thai", "vi": "Vietnamese", "ja": "Japanese",
    "tr": "Turkish", "hi": "Hindi", "ms": "Malay", "nl": "Dutch", "sv": "Swedish", "da": "Danish",
    "fi": "Finnish", "pl": "Polish", "cs": "Czech", "fil": "Filipino", "tl": "Filipino",
    "fa": "Persian", "el": "Greek", "ro": "Romanian", "hu": "Hungarian", "mk": "Macedonian",
}  # fmt: skip
assert set(CODES.values()) == set(mq.SUPPORTED_LANGUAGES), "one code per supported language"


def resolve_language(value: Optional[str], param: str = "language") -> Optional[str]:
    """The library's name for a code or a name; None when not given (the model detects it)."""
    if value is None or not value.strip():
        return None
    key = value.strip().lower()
    by_name = {name.lower(): name for name in mq.SUPPORTED_LANGUAGES}
    name = CODES.get(key) or by_name.get(key)
    if name is None:
        choices = ", ".join(f"{code} ({name})" for code, name in CODES.items())
        raise APIError(
            400,
            f"Unsupported language {value!r}: use one of {choices}, or leave it out to let the model detect it",
            param=param,
            code="unsupported_language",
        )
    return name
