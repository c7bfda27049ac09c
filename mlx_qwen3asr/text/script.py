"""Joining pieces of transcript by their script, not by the language a model reports (or does not).

    join_text("Hello there.", "How are you?")  -> "Hello there. How are you?"
    join_text("你好。", "今天天气很好。")        -> "你好。今天天气很好。"   (Han, kana, Thai: no space)

Chinese, Cantonese, Japanese and Thai are written without spaces between words, so two pieces meet
without one when the character either side of the join is of such a script (ideographs, kana, Thai,
CJK punctuation and full-width forms). Fun-ASR-Nano reports no language, and a forced language says
nothing about a piece's script either: the characters do.
"""

UNSPACED_RANGES = (
    (0x0E00, 0x0E7F),  # Thai
    (0x2E80, 0x2FDF),  # CJK and Kangxi radicals
    (0x3000, 0x30FF),  # CJK symbols and punctuation, Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x31A0, 0x31FF),  # Bopomofo extended, CJK strokes, Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # half-width and full-width forms
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)


def is_unspaced(ch: str) -> bool:
    """Whether `ch` belongs to a script written without spaces between words."""
    code = ord(ch)
    return any(low <= code <= high for low, high in UNSPACED_RANGES)


def join_text(base: str, piece: str) -> str:
    """`base` followed by `piece`, with a space between unless either side of the join is unspaced
    script (or `base` already ends in white space)."""
    if not piece:
        return base
    space = base and not base[-1].isspace() and not is_unspaced(base[-1]) and not is_unspaced(piece[0])
    return base + (" " if space else "") + piece
