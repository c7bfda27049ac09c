"""The Silero VAD benchmarks' quick lanes run end to end from the repository root, as docs/vad.md runs them."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def bench(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_speed_benchmark_measures_ours_and_says_in_one_line_why_the_reference_side_is_skipped():
    out = bench("scripts.bench.vad", "--seconds", "2", "--rounds", "1")
    skipped = [line for line in out.splitlines() if line.startswith("reference side skipped:")]
    assert len(skipped) == 1, out
    rows = [line.split() for line in out.splitlines()]
    ours = [row for row in rows if len(row) > 4 and row[-4] == "ours"]  # ... ours windows/s RTF us/window
    assert len(ours) == 4 and all(float(row[-3]) > 0 for row in ours), out


def test_the_live_replay_commits_speech_and_nothing_on_noise_with_silero():
    rows = {tuple(line.split()[:2]): line.split() for line in bench("scripts.bench.vad_live").splitlines()[1:]}
    assert int(rows[("speech_pauses", "silero")][2]) == 4, rows
    assert int(rows[("fan_switching_on", "silero")][2]) == 0 and int(rows[("hum", "silero")][2]) == 0, rows
