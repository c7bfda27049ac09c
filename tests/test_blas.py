"""The command lines never run on MLX's slow reference BLAS silently (Linux CPU backend): they restart
themselves with the preferred BLAS installed (MKL on x86-64, else OpenBLAS), or say how to get one."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mlx_qwen3asr.blas import chosen_library, installed_library

ROOT = Path(__file__).resolve().parents[1]
ENTRY_POINTS = ["mlx_qwen3asr", "app", "mlx_qwen3asr.convert.cli"]
INSTALLED = installed_library(chosen_library()) if chosen_library() else None


def _run(module: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "MLX_QWEN3ASR_BLAS_REEXEC")}
    clean.update(PYTHONPATH=str(ROOT), MLX_QWEN3ASR_SHOW_BLAS="1", **env)
    return subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, env=clean, timeout=60
    )


LINUX = sys.platform.startswith("linux")  # elsewhere MLX uses Accelerate / the GPU: nothing to check or say


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_an_entry_point_started_without_a_fast_blas_restarts_itself_with_the_preferred_one_or_says_how(module):
    run = _run(module)
    assert run.returncode == 0 and "usage:" in run.stdout, run.stderr
    if not LINUX:
        assert run.stderr == "", run.stderr
    elif INSTALLED:
        assert run.stderr.splitlines() == ["blas: reference", f"blas: {INSTALLED}"], (
            f"re-executed once with {INSTALLED} preloaded: {run.stderr}"
        )
    else:
        assert "pip install mkl" in run.stderr, run.stderr


def test_a_restart_that_still_lacks_a_fast_blas_warns_once_instead_of_looping():
    run = _run("mlx_qwen3asr", MLX_QWEN3ASR_BLAS_REEXEC="1")
    assert run.returncode == 0, run.stderr
    warning = (
        "warning: MLX is using its slow reference BLAS (about 5x slower on the CPU): install MKL (pip install "
        "mkl) or OpenBLAS (sudo apt install libopenblas0-pthread); it is then used automatically"
    )
    expected = ["blas: reference", warning] if LINUX else []
    assert run.stderr.splitlines() == expected, run.stderr


def test_env_sh_preloads_the_same_blas_the_entry_points_choose():
    done = subprocess.run(
        [sys.executable, str(ROOT / "mlx_qwen3asr" / "blas.py")],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"},
        timeout=60,
    )
    if INSTALLED:
        assert f"export LD_PRELOAD='{INSTALLED}'" in done.stdout.splitlines(), done.stdout
    else:
        assert done.stdout == "" and "pip install mkl" in done.stderr, (done.stdout, done.stderr)


@pytest.mark.skipif(not LINUX, reason="the BLAS thread count is Linux's preloaded library's")
def test_threads_sets_the_preloaded_blas_count_for_a_block_and_restores_it():
    from mlx_qwen3asr import blas

    assert blas.thread_count() >= 1, "scripts/test.sh preloads a BLAS whose thread count can be read"
    with blas.threads(2):  # MKL reports at most the machine's cores: stay within 2
        assert blas.thread_count() == 2
        with blas.threads(0):
            assert blas.thread_count() == 1, "never fewer than one thread"
        assert blas.thread_count() == 2, "the count before the block comes back"
