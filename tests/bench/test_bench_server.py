"""The server benchmark's quick lane runs end to end: both lanes (batching off and on) answer every
file, with live sessions streaming alongside, and report positive throughput and latencies."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_server_benchmark_answers_every_file_in_both_lanes(tmp_path):
    out = tmp_path / "bench_server.json"
    command = [
        sys.executable,
        "-m",
        "scripts.bench.server",
        "--quick",
        "--cache-dir",
        str(tmp_path),
        "--json",
        str(out),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, f"scripts.bench.server --quick failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    report = json.loads(out.read_text())
    assert [run["batch_size"] for run in report["runs"]] == [1, 8], "off then on, side by side"
    for run in report["runs"]:
        assert run["errors"] == [], f"batch {run['batch_size']}: {run['errors']}"
        assert run["files_per_s"] > 0 and 0 < run["p50_s"] <= run["p95_s"], run
        assert run["live_partials"] > 0 and run["live_lag_p50_s"] > 0, f"no live partials: {run}"
    assert len(report["load_average_before"]) == 3, "the machine's load is recorded"
    assert "files/s" in done.stdout and "live lag" in done.stdout, "no table printed"
