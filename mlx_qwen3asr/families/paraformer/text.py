"""Paraformer's tokens and how funasr 1.4.16 makes text of them (CharTokenizer + utils/postprocess_utils.py).

    ids (the decoder's argmax per token) -> without 0 (<blank>), 1 (<s>), 2 (</s>) -> tokens.json strings
    -> sentence(): drop <s> </s> <unk> <OOV>; then
       all "Chinese" (starting with a CJK character U+4E00-9FFF or a digit, or "@"): joined without spaces;
       all letters: "@@" pieces continue a word, others end it; words joined by spaces;
       mixed: a CJK token stands alone (a space before it is dropped), letters as above, others as they are;
       then single letters spaced apart ("a b c") become one upper-case word ("ABC") (abbr_dispose)
    -> text ("".join(words).strip()), and with token times the timed words (real_word_lists, ts_lists)

The rules are funasr's, including what its code does at the edges (a time list indexed by the washed
tokens); tests/families/paraformer check them against sentence_postprocess's outputs.
"""

import json
from pathlib import Path
from typing import Optional

from ...text.jsonfile import REDOWNLOAD

DROPPED = ("<s>", "</s>", "<unk>", "<OOV>")
CONTINUES = "@@"
Times = Optional[list[list[int]]]


class Tokens:
    """tokens.json: the token string of each id (0 <blank>, 1 <s>, 2 </s>, ..., the last <unk>)."""

    def __init__(self, tokens: list[str]):
        self.tokens = tokens

    @classmethod
    def from_file(cls, path: Path) -> "Tokens":
        try:
            tokens = json.loads(Path(path).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ValueError(f"{path} is not a JSON list of token strings: {REDOWNLOAD}") from e
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise ValueError(f"{path} is not a JSON list of token strings: {REDOWNLOAD}")
        return cls(tokens)

    def __len__(self) -> int:
        return len(self.tokens)

    def __getitem__(self, i: int) -> str:
        return self.tokens[i]


def _chinese(text: str) -> bool:
    """funasr's isChinese: a comparison of the whole string, so its first character decides ("0abc" counts)."""
    return "\u4e00" <= text <= "\u9fff" or "0" <= text <= "9" or text == "@"


def _alpha(text: str) -> bool:
    """One washed item of funasr's isAllAlpha: all letters (str.isalpha) or an apostrophe, and not "Chinese"."""
    return (text.isalpha() or text == "'") and not (text.isalpha() and _chinese(text))


def _washed(text: str) -> str:
    for marker in (" ", *DROPPED):
        text = text.replace(marker, "")
    return text


def all_chinese(items) -> bool:
    """funasr's isAllChinese: of a token list, each washed token; of one token, each of its characters."""
    items = [_washed(item) for item in items]
    return bool(items) and all(_chinese(item) for item in items)


def all_alpha(items) -> bool:
    """funasr's isAllAlpha, over the same items as all_chinese."""
    items = [_washed(item) for item in items]
    return bool(items) and all(_alpha(item) for item in items)


def sentence(tokens: list[str], times: Times = None) -> tuple[str, list[str], list[list[int]]]:
    """(text, words, their [start_ms, end_ms]) of the decoded tokens, as funasr's sentence_postprocess
    (times: one [start, end] per token, or None: then the word times are empty)."""
    middle = [t for t in tokens if t not in DROPPED]
    if all_chinese(middle):
        words, spans = [t.replace(" ", "") for t in middle], (list(times) if times is not None else [])
    else:
        words, spans = _words(middle, times, mixed=not all_alpha(middle))
    words, spans = abbreviations(words, spans, times is not None)
    return "".join(words).strip(), [w for w in words if w != " "], spans


def _words(middle: list[str], times: Times, mixed: bool) -> tuple[list[str], list[list[int]]]:
    """The letter and mixed branches of sentence_postprocess: "@@" joins pieces, a space follows each word."""
    words, spans, item, spaced, begin, end = [], [], "", False, -1, -1
    open_span = True  # funasr's ts_flag: a new word takes the token's start
    for i, token in enumerate(middle):
        if open_span and times is not None:
            begin, end = times[i]
        if mixed and all_chinese(token):
            if spaced:
                words.pop()
            words.append(token)
            spaced, open_span = False, True
            if times is not None:
                spans.append([begin, end])
        elif CONTINUES in token:
            item += token.replace(CONTINUES, "")
            spaced = False
            if times is not None:
                open_span, end = False, times[i][1]
        elif not mixed or all_alpha(token):
            words += [item + token, " "]
            item, spaced = "", True
            if times is not None:
                open_span, end = True, times[i][1]
                spans.append([begin, end])
        else:
            words.append(token)
    return words, spans


def abbreviations(words: list[str], spans: list[list[int]], timed: bool) -> tuple[list[str], list[list[int]]]:
    """funasr's abbr_dispose: single ASCII letters separated by single spaces become one upper-case word."""
    n = len(words)
    single = lambda k: k < n and len(words[k]) == 1 and words[k].encode("utf-8").isalpha()  # noqa: E731
    begins, ends, last = [], [], -1
    for k in range(n):
        if k <= last or not (single(k) and k + 1 < n and words[k + 1] == " " and single(k + 2)):
            continue
        begins.append(k)
        j = k + 2
        ends.append(j)
        while j + 1 < n and words[j + 1] == " " and single(j + 2):
            j += 2
            ends[-1] = last = j
    index, at = [], 0  # each word's index into the span list (spaces share the next word's)
    for word in words:
        index.append(at)
        at += word != " "
    out, out_spans, last = [], [], -1
    for k in range(n):
        if k <= last:
            continue
        if k in begins:
            begin = spans[index[k]][0] if timed else None
            end_k = ends[begins.index(k)]
            out.append("".join(w.upper() for w in words[k : end_k + 1] if w.encode("utf-8").isalpha()))
            last = end_k
            if timed and index[end_k] < len(spans):
                out_spans.append([begin, spans[index[end_k]][1]])
        else:
            out.append(words[k])
            if timed and index[k] < len(spans) and words[k] != " ":
                out_spans.append(list(spans[index[k]]))
    return out, out_spans
