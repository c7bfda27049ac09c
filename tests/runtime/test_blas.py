"""The command lines never run on MLX's slow reference BLAS silently (Linux CPU backend): they restart
themselves with the preferred BLAS installed (MKL on x86-64, else OpenBLAS), or say how to get one."""

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mlx_qwen3asr.runtime.blas import chosen_library, installed_library, library_paths

ROOT = Path(__file__).resolve().parents[2]
ENTRY_POINTS = ["mlx_qwen3asr", "mlx_qwen3asr_app", "mlx_qwen3asr.cli.convert", "mlx_qwen3asr.server"]
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
        [sys.executable, str(ROOT / "mlx_qwen3asr" / "runtime" / "blas.py")],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"},
        timeout=60,
    )
    if INSTALLED:
        preload = ":".join(library_paths(chosen_library()))
        assert f"export LD_PRELOAD='{preload}'" in done.stdout.splitlines(), done.stdout
    else:
        assert done.stdout == "" and "pip install mkl" in done.stderr, (done.stdout, done.stderr)


@pytest.mark.skipif(not LINUX, reason="the BLAS thread count is Linux's preloaded library's")
def test_threads_sets_the_preloaded_blas_count_for_a_block_and_restores_it():
    from mlx_qwen3asr.runtime import blas

    assert blas.thread_count() >= 1, "scripts/test.sh preloads a BLAS whose thread count can be read"
    with blas.threads(2):  # MKL reports at most the machine's cores: stay within 2
        assert blas.thread_count() == 2
        with blas.threads(0):
            assert blas.thread_count() == 1, "never fewer than one thread"
        assert blas.thread_count() == 2, "the count before the block comes back"


ROUTED = LINUX and INSTALLED is not None and "+" in chosen_library()


@pytest.mark.skipif(not ROUTED, reason="the router runs on Linux x86-64 with MKL, OpenBLAS and a C compiler")
def test_threads_behind_the_router_sets_both_libraries_counts():
    """Two CPU streams (runtime/two_streams.py) need one thread per stream in the library of many rows too."""
    from mlx_qwen3asr.runtime import blas

    assert "+" in blas.known_library(blas.global_cblas()), "scripts/test.sh preloads the router here"
    wide_threads = ctypes.CDLL(None).mlx_qwen3asr_wide_threads  # n < 1 only asks
    with blas.threads(2):
        with blas.threads(1):
            assert (blas.thread_count(), wide_threads(0)) == (1, 1)
        assert (blas.thread_count(), wide_threads(0)) == (2, 2), "both counts come back"


def _products(rows: list[int], env: dict, size: int = 1024) -> subprocess.CompletedProcess:
    """MLX products [rows, size] x [size, size] in a fresh process with `env` (a negative row count:
    [-rows, 16] x [16, 16], a tiny product): prints the router's call counts after each (narrow, wide)
    and the largest error against numpy."""
    code = f"""
import ctypes, numpy as np, mlx.core as mx
calls = (ctypes.c_long * 2).in_dll(ctypes.CDLL(None), "mlx_qwen3asr_blas_calls")
rng = np.random.default_rng(0)
for rows in {rows}:
    size = {size} if rows > 0 else 16
    x, w = (rng.standard_normal(shape, dtype=np.float32) for shape in ((abs(rows), size), (size, size)))
    y = np.array(mx.array(x) @ mx.array(w).T)
    print(rows, calls[0], calls[1], float(np.abs(y - x @ w.T).max()))
"""
    clean = {k: v for k, v in os.environ.items() if k != "MLX_QWEN3ASR_BLAS_REEXEC"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**clean, **env}, timeout=60
    )


@pytest.mark.skipif(not ROUTED, reason="the router runs on Linux x86-64 with MKL, OpenBLAS and a C compiler")
def test_the_router_runs_products_of_few_rows_on_mkl_and_of_many_rows_on_openblas():
    from mlx_qwen3asr.runtime.blas import preload_environment

    run = _products([1, 16, 31, 32, 145], preload_environment(chosen_library(), dict(os.environ)))
    assert run.returncode == 0 and run.stderr == "", run.stderr
    counts = [tuple(float(v) for v in line.split()) for line in run.stdout.splitlines()]
    # one-row decoding and batches up to 16 rows on MKL; encoder and prefill (a row per frame/token) on OpenBLAS
    assert [c[1:3] for c in counts] == [(1, 0), (2, 0), (3, 0), (3, 1), (3, 2)], counts
    assert max(c[3] for c in counts) < 1e-3, "the same products, whichever library ran them"


@pytest.mark.skipif(not ROUTED, reason="the router runs on Linux x86-64 with MKL, OpenBLAS and a C compiler")
def test_the_router_sends_tiny_products_by_their_rows_whatever_ran_before():
    """Determinism: the two libraries give different bits for the same product, so the choice must not
    depend on history (a rule that kept tiny products on the library of the product before did)."""
    from mlx_qwen3asr.runtime.blas import preload_environment

    # an encoder's short last window (attention of 26 rows) after its wide layers; a decode step's scores
    run = _products([145, -26, -26, 1, -26, -1], preload_environment(chosen_library(), dict(os.environ)))
    assert run.returncode == 0 and run.stderr == "", run.stderr
    counts = [tuple(float(v) for v in line.split()[1:3]) for line in run.stdout.splitlines()]
    assert counts == [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1)], counts


@pytest.mark.skipif(not ROUTED, reason="the router runs on Linux x86-64 with MKL, OpenBLAS and a C compiler")
def test_the_router_without_its_second_blas_says_so_once_and_runs_everything_on_mkl():
    from mlx_qwen3asr.runtime.blas import ROUTER_WIDE_VARIABLE, preload_environment

    env = {**preload_environment(chosen_library(), dict(os.environ)), ROUTER_WIDE_VARIABLE: "/nowhere/libopenblas.so"}
    run = _products([1, 145], env)
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == [
        "warning: mlx_qwen3asr BLAS router: MLX_QWEN3ASR_WIDE_BLAS=/nowhere/libopenblas.so could not be "
        "loaded; every product runs on the BLAS preloaded after the router"
    ]
    errors = [float(line.split()[3]) for line in run.stdout.splitlines()]
    assert len(errors) == 2 and max(errors) < 1e-3, run.stdout


@pytest.mark.skipif(not ROUTED, reason="the router runs on Linux x86-64 with MKL, OpenBLAS and a C compiler")
def test_without_a_c_compiler_the_choice_falls_back_to_mkl_alone(tmp_path):
    code = "from mlx_qwen3asr.runtime.blas import chosen_library; print(chosen_library())"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path), "CC": "/nowhere/cc"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.split() == ["mkl"], done.stderr
    assert list(tmp_path.iterdir()) == [], "nothing half-built left behind"


@pytest.mark.skipif(not LINUX, reason="the choice of a preloaded BLAS is Linux's")
def test_a_user_names_the_blas_and_an_entry_point_restarts_on_it_even_over_another_preloaded():
    if not installed_library("mkl") or not installed_library("openblas"):
        pytest.skip("needs MKL and OpenBLAS")
    run = _run("mlx_qwen3asr", MLX_QWEN3ASR_BLAS="mkl", LD_PRELOAD=installed_library("openblas"))
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == [f"blas: {installed_library('openblas')}", f"blas: {installed_library('mkl')}"]


@pytest.mark.skipif(not LINUX, reason="the choice of a preloaded BLAS is Linux's")
def test_a_blas_name_that_is_not_one_says_which_names_are():
    run = _run("mlx_qwen3asr", MLX_QWEN3ASR_BLAS="atlas")
    assert run.returncode != 0
    assert run.stderr.splitlines()[-1] == (
        "MLX_QWEN3ASR_BLAS='atlas' is no BLAS this knows: use one of mkl+openblas, mkl, openblas, blis"
    )


@pytest.mark.parametrize(
    "core, flags, expected",
    [
        (
            "Prescott",
            {"sse3", "avx", "avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"},
            "SkylakeX",
        ),
        ("Prescott", {"sse3", "avx", "avx2", "fma"}, "Haswell"),
        ("Nehalem", {"sse3", "avx", "avx2", "fma", "avx512f"}, "Haswell"),  # AVX-512 without BW/DQ/VL
        ("Prescott", {"sse3", "sse4_2"}, ""),  # an old CPU: its fallback is right
        ("SkylakeX", {"avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}, ""),  # known
        ("Zen", {"avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}, ""),  # its own pick
        ("", {"avx2", "fma"}, ""),  # OpenBLAS could not be asked
    ],
)
def test_openblas_falling_back_to_kernels_older_than_the_cpu_gets_the_ones_its_flags_allow(core, flags, expected):
    from mlx_qwen3asr.runtime.blas import openblas_coretype

    assert openblas_coretype(core, flags) == expected


@pytest.mark.skipif(not library_paths("openblas"), reason="needs Debian's OpenBLAS")
def test_preloaded_openblas_runs_kernels_that_use_the_cpus_avx2_or_avx512():
    from mlx_qwen3asr.runtime.blas import AVX2_CORES, cpu_flags, preload_environment

    if not {"avx2", "fma"} <= cpu_flags():
        pytest.skip("a CPU without AVX2: OpenBLAS's own pick stands")
    clean = {k: v for k, v in os.environ.items() if k not in ("MLX_QWEN3ASR_BLAS_REEXEC", "OPENBLAS_CORETYPE")}
    code = (
        "import ctypes; f = ctypes.CDLL(None).openblas_get_corename; f.restype = ctypes.c_char_p; print(f().decode())"
    )
    env = preload_environment("openblas", clean)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() in AVX2_CORES, f"OpenBLAS runs {run.stdout.strip()} kernels on an AVX2 CPU"
    mine = preload_environment("openblas", {**clean, "OPENBLAS_CORETYPE": "Haswell"})
    assert mine["OPENBLAS_CORETYPE"] == "Haswell", "a user's own OPENBLAS_CORETYPE stands"
