"""Memory: a model that does not fit is refused with advice before MLX fails to allocate (SIGSEGV).

The available memory is faked through $MLX_QWEN3ASR_AVAILABLE_MEMORY, the override the loader reads.
"""

import os
import subprocess
import sys

import mlx.core as mx
import pytest
from mlx.utils import tree_flatten

import mlx_qwen3asr as mq
from mlx_qwen3asr.convert import Recipe, convert
from mlx_qwen3asr.load import tensor_bytes


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
