"""The diarization benchmark's quick lane runs end to end from the repository root, as the README runs it
(our side only: pyannote.audio lives in a dev-only environment the tests never use)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_diarization_benchmark_times_ours_and_says_in_one_line_why_pyannote_is_skipped(tmp_path):
    command = [sys.executable, "-m", "scripts.bench.diarize", "--seconds", "12", "--rounds", "1"]
    done = subprocess.run(
        [*command, "--cache-dir", str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert sum(line.startswith("reference side skipped:") for line in lines) == 1, done.stdout
    rows = [line.split() for line in lines if line.startswith("ours ")]
    assert len(rows) == 1 and float(rows[0][1]) > 0 and float(rows[0][2]) > 0, done.stdout  # s per hour, RTF
