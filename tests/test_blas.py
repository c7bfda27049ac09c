"""The command lines never run on MLX's slow reference BLAS silently (Linux CPU backend)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mlx_qwen3asr.blas import OPENBLAS_PATHS

ROOT = Path(__file__).resolve().parents[1]
ENTRY_POINTS = ["mlx_qwen3asr", "app", "mlx_qwen3asr.convert.cli"]
INSTALLED = next((p for p in OPENBLAS_PATHS if os.path.exists(p)), None)


def _run(module: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "MLX_QWEN3ASR_BLAS_REEXEC")}
    clean.update(PYTHONPATH=str(ROOT), MLX_QWEN3ASR_SHOW_BLAS="1", **env)
    return subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, env=clean,
                          timeout=60)


LINUX = sys.platform.startswith("linux")  # elsewhere MLX uses Accelerate / the GPU: nothing to check or say


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_an_entry_point_started_without_openblas_restarts_itself_with_it_or_says_how_to_get_it(module):
    run = _run(module)
    assert run.returncode == 0 and "usage:" in run.stdout, run.stderr
    if not LINUX:
        assert run.stderr == "", run.stderr
    elif INSTALLED:
        assert run.stderr.splitlines() == ["blas: reference", f"blas: {INSTALLED}"], \
            f"re-executed once with OpenBLAS preloaded: {run.stderr}"
    else:
        assert "apt install libopenblas0-pthread" in run.stderr, run.stderr


def test_a_restart_that_still_lacks_openblas_warns_once_instead_of_looping():
    run = _run("mlx_qwen3asr", MLX_QWEN3ASR_BLAS_REEXEC="1")
    assert run.returncode == 0, run.stderr
    warning = ("warning: MLX is using its slow reference BLAS (about 5x slower on the CPU): install OpenBLAS "
               "(sudo apt install libopenblas0-pthread); it is then used automatically")
    expected = ["blas: reference", warning] if LINUX else []
    assert run.stderr.splitlines() == expected, run.stderr
