"""Splitting long audio at its quietest points, so that no piece is longer than a limit.

wave [samples] -> (start sample, piece) pairs covering it exactly, each <= max_seconds long;
each cut at the quietest sample of the quietest 100 ms within the last 5 s before the limit.

`quietest` is the one quietest-cut rule: offline splitting here (sample magnitudes), the live segmenter
(streaming/segmenter.py: 20 ms frame powers) and the window engine (through split_audio) cut with it.
"""

import numpy as np

from .io import SAMPLE_RATE


def split_audio(
    wave: np.ndarray, max_seconds: float = 30.0, search_seconds: float = 5.0, window_ms: float = 100.0
) -> list[tuple[int, np.ndarray]]:
    """(start sample, chunk) pairs covering `wave` exactly, each at most max_seconds long.

    Each cut goes at the quietest sample inside the quietest window_ms window of the search_seconds
    before the limit (the official energy search, kept on the near side so no chunk exceeds the limit),
    never in the chunk's first half: a quiet start must not make a run of tiny chunks.
    """
    max_len = int(max_seconds * SAMPLE_RATE)
    search = int(search_seconds * SAMPLE_RATE)
    win = max(4, int(window_ms / 1000 * SAMPLE_RATE))
    chunks, start = [], 0
    while len(wave) - start > max_len:
        limit = start + max_len
        left = max(start + max_len // 2, limit - search)
        cut = limit
        if limit - left > win:
            cut = left + quietest(np.abs(wave[left:limit]), win)
        chunks.append((start, wave[start:cut]))
        start = cut
    chunks.append((start, wave[start:]))
    return chunks


def quietest(levels: np.ndarray, window: int) -> int:
    """Index of the quietest value inside the quietest run of `window` values (by their sum) of `levels`
    (sample magnitudes, or frame powers); the first on ties."""
    sums = np.convolve(levels, np.ones(window, dtype=np.result_type(levels, np.float32)), mode="valid")
    start = int(np.argmin(sums))
    return start + int(np.argmin(levels[start : start + window]))
