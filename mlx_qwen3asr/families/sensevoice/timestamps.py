"""Word times from the greedy CTC path: each collapsed id's run of frames, 60 ms per LFR frame.

    per-frame best ids [T + 4] -> runs [s, e) of each kept id (model.collapse)
    -> ids whose run starts in the 4 query frames are the tags: no time
    -> an id of speech frames s..e (counted after the queries): start = max(0.06 s - 0.03, 0),
       end = min(0.06 e - 0.03, 0.06 T - 0.03) seconds (funasr's own rule for its CTC timestamps)
    -> pieces merged into words: a piece starting with "▁" starts a word; a CJK, kana or hangul character is
       a word of its own; tags and "▁" alone give no word

funasr 1.4.16 computes its timestamps (output_timestamp=True) by re-tokenizing its text and force-aligning
those pieces to the log-probabilities (ctc_forced_align); on the greedy path that alignment is the greedy
runs themselves whenever the text re-tokenizes to the ids it came from, which is what we use directly.
"""

from typing import Optional

from ...result import Word
from .vocabulary import SPACE

FRAME_SECONDS = 0.06
HALF_FRAME = 0.03


def token_times(runs: list[tuple[int, int]], speech_frames: int, queries: int) -> list[Optional[tuple[float, float]]]:
    """(start, end) seconds in the chunk for each collapsed id, None for those in the query frames."""
    last = max(0.0, FRAME_SECONDS * speech_frames - HALF_FRAME)
    out = []
    for start, end in runs:
        if start < queries:
            out.append(None)
            continue
        s, e = start - queries, end - queries
        out.append(
            (round(max(FRAME_SECONDS * s - HALF_FRAME, 0.0), 3), round(min(FRAME_SECONDS * e - HALF_FRAME, last), 3))
        )
    return out


def is_unspaced(char: str) -> bool:
    """A character written without spaces around it: CJK ideographs, kana, hangul."""
    code = ord(char)
    return 0x4E00 <= code <= 0x9FFF or 0x3040 <= code <= 0x30FF or 0xAC00 <= code <= 0xD7AF or 0x3400 <= code <= 0x4DBF


def words_of(vocabulary, ids: list[int], times: list[Optional[tuple[float, float]]]) -> list[Word]:
    """Words with times from the timed pieces (tags and untimed pieces skipped)."""
    words: list[list] = []  # [text, start, end]
    for i, time in zip(ids, times):
        if time is None or vocabulary.is_tag(i):
            continue
        piece, new_word = vocabulary.pieces[i], False
        for char in piece:
            if char == SPACE:
                new_word = True
                continue
            if new_word or not words or is_unspaced(char) or is_unspaced(words[-1][0][-1]):
                words.append([char, *time])
                new_word = False
            else:
                words[-1][0] += char
                words[-1][2] = time[1]
    return [Word(text, start, end) for text, start, end in words]
