"""Words written as text (the plain text of cues and of subtitle lines alike)."""

from ..families.aligner.units import is_cjk
from ..result import Word
from ..text.languages import is_space_delimited


def join_words(words: list[Word], language: str) -> str:
    """Words as text: spaces between them, except between two Chinese characters and, in
    Chinese/Japanese/..., everywhere but between two ASCII words (a Latin name, a number)."""
    text = ""
    for word in words:
        ascii_pair = text[-1:].isascii() and word.text[:1].isascii()
        cjk_pair = bool(text) and is_cjk(text[-1]) and is_cjk(word.text[0])
        space = text and not cjk_pair and (is_space_delimited(language) or ascii_pair)
        text += (" " if space else "") + word.text
    return text
