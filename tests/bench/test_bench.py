"""The benchmarks' quick lanes run end to end, as docs/ run them (`python -m scripts.bench.NAME`
from the repository root): overhead writes a JSON report with positive timings for float32 and the
4-bit recipe, changes prints every change's before/after, batch checks that every batch size decodes
the same tokens, prefix that the prompt-prefix cache does, vs_official alternates its sides and records the load, and runs an older revision
on that revision's own BLAS router."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.bench.metrics import character_error_rate
from scripts.bench.sources import ours_environment

ROOT = Path(__file__).resolve().parents[2]


def bench(name: str, *args: str) -> subprocess.CompletedProcess:
    """`python -m scripts.bench.<name> ARGS` from the repository root, as a user runs it."""
    command = [sys.executable, "-m", f"scripts.bench.{name}", *args]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, f"scripts.bench.{name} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def test_quick_benchmark_writes_positive_times_for_every_stage(tmp_path):
    out = tmp_path / "bench.json"
    done = bench(
        "overhead", "--quick", "--runs", "1", "--decode-tokens", "4", "--dtypes", "float32,4bit",
        "--cache-dir", str(tmp_path / "cache"), "--json", str(out),
    )  # fmt: skip
    report = json.loads(out.read_text())
    assert report["official"] is None, "the official comparison lives in scripts.bench.vs_official"
    assert "blas" in report and report["checkpoint_config"] == "tiny", f"bad header: {report.keys()}"
    assert list(report["dtypes"]) == ["float32", "4bit"]
    for dtype, ours in report["dtypes"].items():
        assert_positive_times(ours, dtype)
    assert "float32" in done.stdout and "4bit" in done.stdout and "decode per token" in done.stdout, "no table"


def assert_positive_times(ours: dict, dtype: str) -> None:
    times = {
        "encoder 10 s": ours["encoder"]["10"],
        "encoder 20 s": ours["encoder"]["20"],
        "prefill": ours["prefill"],
        "decode": ours["decode_ms_per_token"],
        "transcribe": ours["transcribe"],
        "limit decode": ours["limit"]["decode_ms_per_token"],
        "limit prefill": ours["limit"]["prefill"],
        "limit encoder": ours["limit"]["encoder"],
        "rss": ours["memory"]["rss_peak_mb"],
        "mlx peak": ours["memory"]["mlx_peak_mb"],
        **{f"overhead {k}": v for k, v in ours["overhead"].items()},
    }
    for name, value in times.items():
        assert value > 0, f"{dtype}: {name} should be a positive number, got {value}"
    assert ours["prefill_tokens"] > 130, f"a 10 s prompt has 130 audio tokens plus text, got {ours['prefill_tokens']}"


def test_quick_before_after_table_lists_every_change_and_stage(tmp_path):
    done = bench("changes", "--quick", "--runs", "1", "--cache-dir", str(tmp_path / "cache"))
    for text in ("fused GELU", "conv stem in batches", "attention with", "encoder 60 s", "prefill 145 tokens"):
        assert text in done.stdout, f"{text!r} missing from:\n{done.stdout}"


def test_quick_batch_benchmark_reports_identical_tokens_and_positive_timings_at_every_batch_size(tmp_path):
    out = tmp_path / "batch.json"
    done = bench("batch", "--quick", "--cache-dir", str(tmp_path / "cache"), "--json", str(out))
    report = json.loads(out.read_text())
    assert report["identical"] == {"1": True, "2": True, "4": True}, report["identical"]
    for batch, result in report["results"].items():
        for key in ("encoder", "prefill", "decode", "audio_per_compute", "decode_tokens_per_s", "peak_mb"):
            assert result[key] > 0, f"batch {batch}: {key} should be positive, got {result[key]}"
    assert "identical to batch 1" in done.stdout and "decode-phase tokens/s" in done.stdout


def test_quick_alignment_benchmark_times_both_attentions_of_ours(tmp_path):
    out = tmp_path / "align.json"
    done = bench("align", "--quick", "--seconds", "10", "--cache-dir", str(tmp_path / "cache"), "--json", str(out))
    report = json.loads(out.read_text())
    assert report["config"] == "tiny" and report["threads"] == 2 and report["units"] == 86, report
    assert set(report["times"]) == {"ours windowed", "ours full"}, "the official runs only with --official-python"
    assert all(t > 0 for times in report["times"].values() for t in times), report["times"]
    assert len(report["load"]) == 2, "one load average per timed run"
    assert "ours windowed" in done.stdout and "load average" in done.stdout, done.stdout


def test_quick_comparison_alternates_the_sides_and_records_the_load_under_the_busy_background(tmp_path):
    out = tmp_path / "vs.json"
    done = bench(
        "vs_official", "--quick", "--sides", "ours,ours:reference", "--runs", "2", "--warmup", "0", "--busy",
        "--cache-dir", str(tmp_path / "cache"), "--json", str(out),
    )  # fmt: skip
    report = json.loads(out.read_text())
    assert report["case"].startswith("busy: background load 2 processes x 75% of a core"), report["case"]
    assert report["sides"]["ours:reference"]["blas"] == "reference", report["sides"]
    records = sorted((r for side in report["records"].values() for r in side), key=lambda r: r["order"])
    by_order = {r["order"]: label for label, side in report["records"].items() for r in side}
    sequence = [by_order[r["order"]] for r in records]
    assert sequence == ["ours", "ours:reference"] * (len(records) // 2), f"sides not alternated: {sequence}"
    for r in records:
        assert r["value"] > 0 and r["load1"] >= 0 and 0 <= r["others"] <= r["busy"] <= 1, f"bad record {r}"
    stages = [s for s, rows in report["summary"].items() if rows]
    assert len(stages) == 6 and all(len(report["summary"][s]) == 2 for s in stages), report["summary"].keys()
    assert "ours:reference / ours" in done.stdout and "peak RSS" in done.stdout, done.stdout[-3000:]


def _older_tree(tmp_path: Path, needs: str) -> Path:
    """A copy of today's package under tmp_path, for a test of BLAS `needs` (skipped without it)."""
    from mlx_qwen3asr.runtime.blas import installed_library

    if not installed_library(needs):
        pytest.skip(f"needs {needs}")
    older = tmp_path / "older"
    shutil.copytree(ROOT / "mlx_qwen3asr", older / "mlx_qwen3asr", ignore=shutil.ignore_patterns("__pycache__"))
    return older


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not shutil.which(os.environ.get("CC", "cc")),
    reason="the router is built on Linux with a C compiler",
)
def test_an_older_revision_runs_on_the_router_built_from_its_own_source(tmp_path):
    older = _older_tree(tmp_path, "mkl+openblas")
    with open(older / "mlx_qwen3asr" / "runtime" / "blas_router.c", "a") as source:
        source.write("/* an older router */\n")
    base = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    routers = [
        [p for p in ours_environment(root, "mkl+openblas", base)["LD_PRELOAD"].split(":") if "blas_router" in p]
        for root in (ROOT, older)
    ]
    assert all(len(r) == 1 and r[0].startswith(str(tmp_path / "cache")) for r in routers), routers
    assert routers[0] != routers[1], "the older tree must run its own router, not today's"


def test_a_revision_older_than_the_router_runs_its_own_package_on_the_library_named(tmp_path):
    from mlx_qwen3asr.runtime.blas import LIBRARIES

    older = _older_tree(tmp_path, "openblas")
    (older / "mlx_qwen3asr" / "runtime" / "blas.py").unlink()  # blas.py sat at the package root before issue 39
    (older / "mlx_qwen3asr" / "blas.py").write_text("def ensure_fast_blas():\n    pass\n")  # as before 1937723
    env = ours_environment(older, "openblas", {**os.environ, "LD_PRELOAD": ""})
    assert env["PYTHONPATH"].split(os.pathsep) == [str(older), str(ROOT)], "its package first, then scripts"
    assert env["LD_PRELOAD"].split(":")[0] in LIBRARIES["openblas"]


def test_quick_prefix_cache_benchmark_prints_a_row_per_context_with_identical_tokens(tmp_path):
    done = bench("prefix", "--quick", "--cache-dir", str(tmp_path))
    rows = [line.split("|")[1:-1] for line in done.stdout.splitlines() if line.startswith(("| 0 |", "| 200 |"))]
    assert [row[0].strip() for row in rows] == ["0", "200"], done.stdout
    for row in rows:
        assert row[-1].strip() == "yes", f"tokens differ with the prefix cache: {row}"
        assert all(float(cell.split()[0]) > 0 for cell in row[1:5]), f"timings must be positive: {row}"
    assert "3 chunks" in done.stdout and "load average" in done.stdout, done.stdout


def test_long_prompt_benchmark_prints_the_peak_memory_with_and_without_prefill_blocks(tiny_checkpoint):
    lines = [
        bench("long_prompt", "--model", str(tiny_checkpoint), "--tokens", "1500", *block).stdout
        for block in ([], ["--block", "100000"])
    ]
    peaks = [float(line.split("peak MLX ")[1].split()[0]) for line in lines]
    assert "block 512" in lines[0] and "block 100000" in lines[1], lines
    tokens = [line.split("tokens ")[1].split(";")[0] for line in lines]
    assert tokens[0] == tokens[1], f"blocks changed the tokens: {lines}"
    assert 0 < peaks[0] < peaks[1], f"blocks should lower the peak: {peaks}"


def test_character_error_rate_counts_edits_per_reference_character():
    assert character_error_rate("kitten", "sitting") == pytest.approx(3 / 6)
    assert character_error_rate("a  b", "a b") == 0.0, "whitespace runs are collapsed"
    assert character_error_rate("", "") == 0.0 and character_error_rate("", "x") == 1.0
