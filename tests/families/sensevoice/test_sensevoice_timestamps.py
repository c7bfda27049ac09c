"""Word times from the greedy CTC path, on a synthetic alignment (60 ms per LFR frame, funasr's half-frame rule)."""

import numpy as np
import pytest

from mlx_qwen3asr.families.sensevoice.model import collapse
from mlx_qwen3asr.families.sensevoice.timestamps import token_times, words_of
from mlx_qwen3asr.families.sensevoice.vocabulary import Vocabulary
from mlx_qwen3asr.result import Word

PIECES = ["<unk>", "<s>", "</s>", "<|en|>", "<|NEUTRAL|>", "<|Speech|>", "<|woitn|>", "\u2581he", "llo", "\u2581world"]
PIECES += ["\u4f60", "\u597d"]  # 你 好


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary(
        [(p, 2 if i == 0 else 3 if i < 3 else 4 if p.startswith("<|") else 1) for i, p in enumerate(PIECES)]
    )


def test_collapse_merges_repeats_drops_blanks_and_keeps_each_run():
    best = np.array([3, 4, 5, 6, 0, 7, 7, 0, 8, 0, 0, 7, 9])
    ids, runs = collapse(best)
    assert ids == [3, 4, 5, 6, 7, 8, 7, 9], "a repeat after a blank is a new token"
    assert runs == [(0, 1), (1, 2), (2, 3), (3, 4), (5, 7), (8, 9), (11, 12), (12, 13)]


def test_times_are_60_ms_frames_after_the_queries_minus_half_a_frame(vocab):
    # frames: 4 tags, blank, "▁he" x2, blank, "llo", blank x2, "▁world" x3, blank: 10 speech frames
    best = np.array([3, 4, 5, 6, 0, 7, 7, 0, 8, 0, 0, 9, 9, 9, 0])
    ids, runs = collapse(best)
    times = token_times(runs, len(best) - 4, 4)
    assert times[:4] == [None] * 4, "the tags come from the query frames"
    # "▁he": speech frames 1..3 -> 0.06 - 0.03 .. 0.18 - 0.03; "▁world": frames 7..10 (an end is capped at 0.06 * 11 - 0.03)
    assert times[4:] == [(0.03, 0.15), (0.21, 0.27), (0.39, 0.57)]
    assert words_of(vocab, ids, times) == [Word("hello", 0.03, 0.27), Word("world", 0.39, 0.57)]


def test_the_first_frame_starts_at_zero_and_cjk_characters_are_words_of_their_own(vocab):
    best = np.array([3, 4, 5, 6, 10, 0, 11, 11])
    ids, runs = collapse(best)
    words = words_of(vocab, ids, token_times(runs, 4, 4))
    assert words == [Word("\u4f60", 0.0, 0.03), Word("\u597d", 0.09, 0.21)]
