"""Language field -> the library's language name: ISO-639-1 codes ("en") and names in any case.

    "en" / "EN" / "english" / "English" -> "English";  "" -> None (detect);  "xx" -> APIError 400

The names and codes are the library's (mlx_qwen3asr/text/languages.py); which of them the served model takes
is its family's list, checked with the other options (routes.checked_options: a 400 naming that list).
"""

from typing import Optional

from mlx_qwen3asr.text.languages import canonical

from .errors import APIError


def resolve_language(value: Optional[str], param: str = "language") -> Optional[str]:
    """The library's name for a code or a name; None when not given (the model detects it)."""
    try:
        return canonical(value)
    except ValueError as e:
        raise APIError(400, str(e), param=param, code="unsupported_language") from e
