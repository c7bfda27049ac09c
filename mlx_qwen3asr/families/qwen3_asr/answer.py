"""Qwen3-ASR's answer: "language English<asr_text>Hello." -> ("English", "Hello."), as the official
`parse_asr_output` reads it (with its loop clean-up), and the append-only reading of a streaming
window's answer (`parse_partial`: no clean-up that could rewrite earlier text).
"""

import re
from typing import Optional

ASR_TEXT_TAG = "<asr_text>"  # an added token that is NOT special: decode keeps it
LANGUAGE_PREFIX = "language "
REPETITION_THRESHOLD = 20  # a character or pattern repeated more than this is a decoding loop
_MAX_PATTERN_LENGTH = 20
# The header "language X<asr_text>" ends within this many characters, or the output has none; deciding
# only then keeps the text of a prefix a prefix of the text (append-only).
MAX_HEADER_CHARS = 40


def _repeated_pattern_length(text: str, start: int, threshold: int) -> int:
    """Length of the shortest pattern at `start` that repeats `threshold` times in a row, else 0."""
    for length in range(1, _MAX_PATTERN_LENGTH + 1):
        if start + length * threshold > len(text):
            return 0
        if text[start : start + length * threshold] == text[start : start + length] * threshold:
            return length
    return 0


def _collapse_repeated_patterns(text: str, threshold: int) -> str:
    """Replace each run of >= `threshold` copies of a pattern (1..20 chars) with one copy.

    Scanning goes left to right and takes the first start and then the shortest pattern. As in the
    official code, a run is looked for only at starts followed by at least 2 * threshold characters,
    so a loop at the very end of the text can survive.
    """
    pieces = []
    emitted = start = 0
    while start <= len(text) - 2 * threshold:
        length = _repeated_pattern_length(text, start, threshold)
        if not length:
            start += 1
            continue
        pattern = text[start : start + length]
        end = start + length * threshold
        while text[end : end + length] == pattern:
            end += length
        pieces.append(text[emitted:start] + pattern)
        emitted = start = end
    pieces.append(text[emitted:])
    return "".join(pieces)


def fix_repetitions(text: str, threshold: int = REPETITION_THRESHOLD) -> str:
    """The official loop clean-up: a character repeated more than `threshold` times in a row becomes
    one character, then runs of `threshold` or more copies of a short pattern become one copy."""
    single_chars = re.sub(rf"(.)\1{{{threshold},}}", r"\1", text, flags=re.DOTALL)
    return _collapse_repeated_patterns(single_chars, threshold)


def _language_from_header(header: str) -> str:
    """ "language english" on the first line that starts with it -> "English"; else ""."""
    for line in header.splitlines():
        line = line.strip()
        if line.lower().startswith(LANGUAGE_PREFIX):
            name = line[len(LANGUAGE_PREFIX) :].strip()
            return name[:1].upper() + name[1:].lower()
    return ""


def parse_output(raw: str, forced_language: Optional[str] = None) -> tuple[str, str]:
    """(language, text) of a decoded answer, as the official `parse_asr_output` returns them.

    "language English<asr_text>Hi." -> ("English", "Hi."); no `<asr_text>` -> ("", whole text);
    "language None" (silence) -> ("", text). With `forced_language` (canonical name) the prompt
    already held the header, so the whole answer is text.
    """
    text = raw.strip() if raw else ""
    if not text:
        return "", ""
    text = fix_repetitions(text)
    if forced_language:
        return forced_language, text
    if ASR_TEXT_TAG not in text:
        return "", text.strip()
    header, text = text.split(ASR_TEXT_TAG, 1)
    if "language none" in header.lower():
        return "", text.strip()
    return _language_from_header(header), text.strip()


def parse_partial(raw: str, forced_language: Optional[str] = None) -> tuple[str, str]:
    """(language, text) of a streaming window's answer so far; the text of a prefix of the answer is a
    prefix of this one: a header still being written gives "", an answer without a header is all text."""
    decoded = raw.lstrip()
    if forced_language:  # the prompt held the header
        return forced_language, decoded.rstrip()
    tag = decoded.find(ASR_TEXT_TAG)
    if "language".startswith(decoded[:8]):
        if 0 <= tag <= MAX_HEADER_CHARS:
            language = parse_output(decoded[: tag + len(ASR_TEXT_TAG)])[0]
            return language, decoded[tag + len(ASR_TEXT_TAG) :].strip()
        if tag < 0 and len(decoded) < MAX_HEADER_CHARS + len(ASR_TEXT_TAG):
            return "", ""
    return "", decoded.rstrip()
