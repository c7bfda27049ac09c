"""Aligner classes -> monotonic times against the official Qwen3ForceAlignProcessor.fix_timestamp.

Fixture: tests/fixtures/aligner/repair_cases.json (scripts/make_aligner_goldens.py, qwen-asr 0.0.6):
random, noisy, sorted, decreasing, all-equal and few-valued (many ties) class sequences of 1-80 values.
"""

import json
from pathlib import Path

import pytest

from mlx_qwen3asr.families.aligner.repair import class_times_ms, ms_to_seconds, repair_times_ms

GOLDEN_FILE = Path(__file__).parents[2] / "fixtures/aligner/repair_cases.json"
GOLDEN = json.loads(GOLDEN_FILE.read_text(encoding="utf-8"))
CASES = GOLDEN["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: ",".join(map(str, c["classes"]))[:40])
def test_repaired_times_are_the_official_ones(case):
    assert repair_times_ms(class_times_ms(case["classes"], GOLDEN["segment_time_ms"])) == case["repaired_ms"]


def test_repaired_times_never_decrease():
    for case in CASES:
        times = repair_times_ms(class_times_ms(case["classes"], 80))
        assert all(a <= b for a, b in zip(times, times[1:])), case["classes"]


def test_goldens_include_interpolated_times_off_the_80_ms_grid():
    assert any(t % 80 for case in CASES for t in case["repaired_ms"])


# The expected values below were printed by the official fix_timestamp.
def test_short_runs_of_anomalies_take_the_nearer_neighbour_and_a_tie_goes_left():
    assert repair_times_ms([0, 800, 160, 240]) == [0, 0, 160, 240]
    assert repair_times_ms([0, 80, 900, 900, 160, 240, 320]) == [0, 80, 80, 160, 160, 240, 320]


def test_long_runs_of_anomalies_are_interpolated_and_truncated():
    assert repair_times_ms([80, 4000, 3000, 2000, 1000, 400, 480]) == [80, 144, 208, 272, 336, 400, 480]
    assert repair_times_ms([80, 9000, 8000, 7000, 6000, 5000, 4000, 180, 200]) == [
        80,
        94,
        108,
        122,
        137,
        151,
        165,
        180,
        200,
    ]


def test_among_equally_long_subsequences_the_first_one_wins():
    # 80 -> 9000 and 80 -> 180 are both 2 long; the official programme ends at the first, so the
    # tail takes 9000 instead of being interpolated towards 180.
    assert repair_times_ms([80, 9000, 8000, 7000, 6000, 5000, 4000, 180]) == [80] + [9000] * 7


def test_an_empty_sequence_repairs_to_nothing():
    assert repair_times_ms([]) == []


def test_milliseconds_become_seconds_rounded_to_the_millisecond():
    assert [ms_to_seconds(ms) for ms in (0, 144, 399920, 1234.5)] == [0.0, 0.144, 399.92, 1.234]
