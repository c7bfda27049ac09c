"""Memory: a model that does not fit is refused with advice before MLX fails to allocate (SIGSEGV).

The available memory is faked through $MLX_QWEN3ASR_AVAILABLE_MEMORY, the override the loader reads,
through a real address-space limit (RLIMIT_AS) on a child process, and through fake cgroup folders.
"""

import os
import resource
import subprocess
import sys
import wave

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten

import mlx_qwen3asr as mq
from mlx_qwen3asr.loading.convert import Recipe, convert
from mlx_qwen3asr.loading.load import tensor_bytes
from mlx_qwen3asr.runtime.memory import cgroup_headroom, cgroup_limit


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_estimate_is_the_memory_the_loaded_tensors_take(tiny_checkpoint, dtype):
    model = mq.load(tiny_checkpoint, dtype=dtype)
    loaded = sum(v.nbytes for _, v in tree_flatten(model.parameters()))
    assert tensor_bytes(tiny_checkpoint, getattr(mx, dtype), tied_head=True) == loaded


def test_a_quantized_folder_is_estimated_at_its_packed_size(tiny_checkpoint, tmp_path):
    folder = convert(tiny_checkpoint, tmp_path / "q", Recipe()).folder
    model = mq.load(folder, dtype="float16")
    assert tensor_bytes(folder, mx.float16, tied_head=True) == sum(
        v.nbytes for _, v in tree_flatten(model.parameters())
    )


def test_a_model_that_does_not_fit_is_refused_with_advice(tiny_checkpoint, monkeypatch):
    monkeypatch.setenv("MLX_QWEN3ASR_AVAILABLE_MEMORY", "100e6")
    with pytest.raises(
        MemoryError,
        match=r"Not enough memory to load .* as float32: it needs about 0\.6 GB and "
        r"0\.1 GB is available.*Qwen3-ASR-0\.6B.*float16.*4-bit",
    ):
        mq.load(tiny_checkpoint, dtype="float32")
    monkeypatch.setenv("MLX_QWEN3ASR_AVAILABLE_MEMORY", "1e9")
    assert isinstance(mq.load(tiny_checkpoint, dtype="float32"), mq.Qwen3ASR), "it fits in 1 GB"


def test_a_conversion_that_does_not_fit_is_refused_before_writing(tiny_checkpoint, tmp_path, monkeypatch):
    monkeypatch.setenv("MLX_QWEN3ASR_AVAILABLE_MEMORY", "100e6")
    with pytest.raises(MemoryError, match="Not enough memory to convert"):
        convert(tiny_checkpoint, tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_the_command_line_says_so_in_one_line(tiny_checkpoint, tmp_path):
    env = {**os.environ, "MLX_QWEN3ASR_AVAILABLE_MEMORY": "100e6"}
    (tmp_path / "a.wav").write_bytes(b"")
    run = subprocess.run(
        [sys.executable, "-m", "mlx_qwen3asr", str(tmp_path / "a.wav"), "--model", str(tiny_checkpoint)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 1 and run.stderr.startswith("error: cannot load model: Not enough memory"), run.stderr
    assert run.stderr.count("\n") == 1, run.stderr


# `ulimit -v 1000000`: the address space that importing MLX and starting the BLAS threads take fits,
# loading and decoding a model does not (before the check, the command line hung or died with SIGSEGV).
ULIMIT_V = 1_000_000 * 1024


def _under_address_space_limit(command: list[str], cwd=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MLX_QWEN3ASR_AVAILABLE_MEMORY"}
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (ULIMIT_V, ULIMIT_V)),
    )


def _clip(folder) -> str:
    clip = folder / "a.wav"
    with wave.open(str(clip), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(16000)
        f.writeframes((np.random.default_rng(0).standard_normal(16000) * 3000).astype("<i2").tobytes())
    return str(clip)


def test_under_ulimit_v_the_command_line_refuses_in_one_line_instead_of_crashing(tiny_checkpoint, tmp_path):
    clip = _clip(tmp_path)
    run = _under_address_space_limit([sys.executable, "-m", "mlx_qwen3asr", str(clip), "--model", str(tiny_checkpoint)])
    assert run.returncode == 1, f"exit {run.returncode} (-11: SIGSEGV): {run.stderr}"
    assert run.stderr.startswith(
        f"error: cannot load model: Not enough memory to load {tiny_checkpoint} as float32: it needs about 0.6 GB"
    ), run.stderr
    assert "under this process's address-space limit (ulimit -v 1000000:" in run.stderr, run.stderr
    assert run.stderr.count("\n") == 1, run.stderr


def test_under_ulimit_v_the_dictation_app_refuses_in_one_line_instead_of_crashing(tiny_checkpoint, tmp_path):
    app = [sys.executable, "-m", "mlx_qwen3asr_app", "--model", str(tiny_checkpoint), "--input", _clip(tmp_path)]
    run = _under_address_space_limit([*app, "--fast"], cwd=tmp_path)  # the installed app, not the checkout's
    assert run.returncode == 1, f"exit {run.returncode} (-11: SIGSEGV): {run.stderr}"
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Not enough memory to load" in errors[0], run.stderr
    assert "address-space limit (ulimit -v 1000000:" in errors[0] and "Traceback" not in run.stderr, run.stderr


def test_the_address_space_limit_bounds_what_is_available(tmp_path):
    """The check run under a limit of what is mapped now + the threads' reserve + 300 MB."""
    script = (
        "import resource, sys\n"
        "from mlx_qwen3asr.runtime.memory import address_space_in_use, available_memory, thread_reserve\n"
        "limit = address_space_in_use() + thread_reserve() + 300_000_000\n"
        "resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))\n"
        "print(available_memory())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "MLX_QWEN3ASR_AVAILABLE_MEMORY"}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert 299_000_000 <= int(run.stdout) <= 300_000_000, f"{run.stdout}: what is mapped is counted, to 1 MB"


def _cgroup_tree(tmp_path, version: int, limit: str, usage: int, cache: int):
    """A fake /sys/fs/cgroup and /proc/self/cgroup: this process in /app/worker, the limit on /app."""
    root = tmp_path / "cgroup"
    if version == 2:
        (root / "app" / "worker").mkdir(parents=True)
        (root / "cgroup.controllers").write_text("cpu memory\n")
        (root / "app" / "memory.max").write_text(f"{limit}\n")
        (root / "app" / "memory.current").write_text(f"{usage}\n")
        (root / "app" / "memory.stat").write_text(f"anon {usage - cache}\ninactive_file {cache}\n")
        (root / "app" / "worker" / "memory.max").write_text("max\n")
        (root / "app" / "worker" / "memory.current").write_text(f"{usage}\n")
        proc = "0::/app/worker\n"
    else:
        memory = root / "memory" / "app" / "worker"
        memory.mkdir(parents=True)
        (memory.parent / "memory.limit_in_bytes").write_text(f"{limit}\n")
        (memory.parent / "memory.usage_in_bytes").write_text(f"{usage}\n")
        (memory.parent / "memory.stat").write_text(f"cache {cache}\ntotal_inactive_file {cache}\n")
        (memory / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # v1's "no limit"
        (memory / "memory.usage_in_bytes").write_text(f"{usage}\n")
        proc = "5:cpu:/\n4:memory:/app/worker\n"
    (tmp_path / "proc_cgroup").write_text(proc)
    return tmp_path / "proc_cgroup", root


@pytest.mark.parametrize("version", [2, 1])
def test_a_cgroup_memory_limit_bounds_what_is_available(tmp_path, version):
    proc, root = _cgroup_tree(tmp_path, version, "4000000000", usage=3_000_000_000, cache=500_000_000)
    assert cgroup_headroom(proc, root) == 1_500_000_000, "limit - usage + droppable page cache, on the parent"
    assert cgroup_limit(proc, root) == 4_000_000_000


@pytest.mark.parametrize("version", [2, 1])
def test_without_a_cgroup_limit_there_is_no_cgroup_bound(tmp_path, version):
    proc, root = _cgroup_tree(tmp_path, version, "max" if version == 2 else "9223372036854771712", 10**9, 0)
    assert cgroup_headroom(proc, root) is None and cgroup_limit(proc, root) is None
