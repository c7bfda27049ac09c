"""Text -> alignment units, exactly as the official Qwen3-ForcedAligner splits it (qwen-asr 0.0.6).

    text, language
      japanese -> nagisa words (optional extra `ja`)      -> clean each, drop empties
      korean   -> soynlp LTokenizer rule + word list       -> clean each, drop empties
      other    -> whitespace split -> clean each -> every CJK ideograph its own unit
    -> units [str]   (each later gets a start and an end time)

"Clean" keeps letters, numbers (Unicode categories L*, N*) and the ASCII apostrophe only, so
`e-mail` -> `email`, `3.14` -> `314`, `don't` stays, punctuation-only words vanish. Cleaning comes
before the CJK split: `你好,world` -> `你`, `好`, `world`. Kana and Hangul are not "CJK" here.

Korean: soynlp's LTokenizer with every dictionary word scored 1.0 (and 0.0 otherwise) splits each
whitespace-separated word longer than 2 characters after its LONGEST dictionary prefix of length >= 2
(the rest, if any, is a second unit) and keeps a word with no such prefix whole. That is the whole
rule, so it is done here with the official dictionary's words (`korean_words.txt`: the first field of
each line of qwen-asr 0.0.6's `korean_dict_jieba.dict`, deduplicated) and needs no soynlp.
"""

import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Optional

KOREAN_WORDS_FILE = Path(__file__).with_name("korean_words.txt")
JAPANESE_EXTRA_HINT = "pip install 'mlx-qwen3asr[ja]'"
# Code-point ranges the official aligner treats as CJK ideographs: one unit per character.
CJK_RANGES = (
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0x3400, 0x4DBF),  # Extension A
    (0x20000, 0x2A6DF),  # Extension B
    (0x2A700, 0x2B73F),  # Extension C
    (0x2B740, 0x2B81F),  # Extension D
    (0x2B820, 0x2CEAF),  # Extension E
    (0xF900, 0xFAFF),  # Compatibility Ideographs
)


def is_kept_char(ch: str) -> bool:
    return ch == "'" or unicodedata.category(ch)[0] in "LN"


def clean(token: str) -> str:
    return "".join(ch for ch in token if is_kept_char(ch))


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(low <= code <= high for low, high in CJK_RANGES)


def split_cjk(word: str) -> list[str]:
    """Every CJK ideograph alone; the runs of other characters between them as one unit each."""
    units, run = [], ""
    for ch in word:
        if is_cjk(ch):
            if run:
                units.append(run)
                run = ""
            units.append(ch)
        else:
            run += ch
    if run:
        units.append(run)
    return units


def space_language_units(text: str) -> list[str]:
    units = []
    for word in text.split():
        cleaned = clean(word)
        if cleaned:
            units.extend(split_cjk(cleaned))
    return units


@lru_cache(maxsize=1)
def korean_words() -> frozenset[str]:
    return frozenset(KOREAN_WORDS_FILE.read_text(encoding="utf-8").split("\n")) - {""}


def korean_pieces(word: str, dictionary: frozenset[str]) -> list[str]:
    """soynlp LTokenizer on one word: its longest dictionary prefix of length >= 2 and the rest."""
    if len(word) <= 2:
        return [word]
    split = next((end for end in range(len(word), 1, -1) if word[:end] in dictionary), len(word))
    return [piece for piece in (word[:split], word[split:]) if piece]


def korean_units(text: str) -> list[str]:
    dictionary = korean_words()
    pieces = [piece for word in text.split() for piece in korean_pieces(word, dictionary)]
    return [unit for unit in map(clean, pieces) if unit]


def japanese_units(text: str) -> list[str]:
    if not text.strip():
        return []  # no words, so no segmenter needed (a silent chunk's empty text)
    try:
        import nagisa  # optional: the `ja` extra; its DyNet model loads on import (~1 s)
    except ImportError as e:
        raise ImportError(f"Japanese alignment needs the nagisa word segmenter: {JAPANESE_EXTRA_HINT}") from e
    return [unit for unit in map(clean, nagisa.tagging(text).words) if unit]


def split_units(text: str, language: Optional[str] = None) -> list[str]:
    """The units the aligner times, in order. `language` is a name such as "English" (any case);
    only Japanese and Korean have their own rules, everything else (and None) splits on whitespace."""
    name = (language or "").lower()
    if name == "japanese":
        return japanese_units(text)
    if name == "korean":
        return korean_units(text)
    return space_language_units(text)
