"""The frame bookkeeping that decides every turn boundary (pure functions, table-driven)."""

import numpy as np
import pytest

from mlx_qwen3asr.families.pyannote import frames
from mlx_qwen3asr.families.pyannote.clustering import speaker_bounds
from mlx_qwen3asr.families.pyannote.pipeline import speaker_turns
from mlx_qwen3asr.families.pyannote.turns import named_turns


@pytest.mark.parametrize(
    ("seconds", "windows", "last_padded"),
    [(27.5, 19, True), (10.0, 1, False), (9.0, 1, True), (11.0, 2, False), (11.5, 3, True), (2.0, 1, True)],
)
def test_windows_every_second_and_a_padded_last_one(seconds, windows, last_padded):
    n = int(seconds * 16000)
    starts = frames.window_starts(n)
    assert len(starts) == windows and list(starts[:2]) == [0, 16000][: len(starts)]
    assert (starts[-1] + frames.WINDOW > n) == last_padded
    assert len(frames.window(np.ones(n, np.float32), int(starts[-1]))) == frames.WINDOW


def test_powerset_takes_the_first_maximum_on_ties():
    scores = np.log(np.full((1, 7), 1 / 7, np.float32))
    assert frames.powerset(scores).tolist() == [[0, 0, 0]]
    scores[0, 5] = 0.0
    assert frames.powerset(scores).tolist() == [[1, 0, 1]]


def test_count_averages_the_windows_and_rounds_half_to_even():
    seg = np.zeros((2, 589, 3), np.float32)
    seg[0, :, :2] = 1  # two speakers in window 0, none in window 1
    count = frames.speaker_count(seg)
    assert count[0] == 2, "only window 0 covers frame 0"
    assert count[100] == 1, "(2 + 0) / 2"
    seg[1, :, 0] = 1
    count = frames.speaker_count(seg)
    assert count[100] == 2, "(2 + 1) / 2 = 1.5 rounds to 2"
    seg[0, :, 1] = 0
    seg[1, :, 0] = 0
    assert frames.speaker_count(seg)[100] == 0, "(1 + 0) / 2 = 0.5 rounds to 0"


def test_grid_starts_windows_at_the_closest_frame():
    assert frames.start_frames(4).tolist() == [0, 59, 119, 178]  # rint(c x 16000 / 270)
    assert frames.num_frames(1) == 594 and frames.num_frames(10) == 1127  # rint((10 + c - 1) / step) + 1


def test_turns_run_from_frame_middle_to_frame_middle():
    binary = np.zeros((10, 2), np.float32)
    binary[2:5, 0] = 1
    binary[7:, 1] = 1
    binary[9, 0] = 1  # a one-frame run at the end has no length: dropped
    middle = frames.frame_middle
    assert frames.turns(binary) == [(middle(2), middle(5), 0), (middle(7), middle(9), 1)]
    assert middle(0) == pytest.approx(0.03096875)


def test_labels_follow_cluster_index_in_string_order():
    raw = [(0.0, 1.0, 11), (1.0, 2.0, 10), (2.0, 3.0, 2), (3.0, 4.0, 0), (4.0, 5.0, 1)]  # clusters 3..9: no turns
    speakers = [turn.speaker for turn in named_turns(raw).turns]
    assert speakers == ["SPEAKER_03", "SPEAKER_02", "SPEAKER_04", "SPEAKER_00", "SPEAKER_01"], "'10' < '11' < '2'"


def test_silence_gives_no_turns():
    assert speaker_turns(np.zeros((1, 589, 3), np.float32), np.zeros((1, 3, 256)), None, None).turns == []


@pytest.mark.parametrize(
    ("num", "low", "high", "expected"),
    [(None, None, None, (None, 1, np.inf)), (2, None, None, (2, 2, 2)), (None, 2, 4, (None, 2, 4)),
     (None, 3, 3, (3, 3, 3)), (2, 5, 1, (2, 2, 2))],
)  # fmt: skip
def test_speaker_bounds_as_pyannote_sets_them(num, low, high, expected):
    assert speaker_bounds(num, low, high) == expected


def test_impossible_bounds_fail_in_one_line():
    with pytest.raises(ValueError, match="min_speakers .3. must not exceed max_speakers .2."):
        speaker_bounds(None, 3, 2)
