"""The device picks the path once (runtime/device.py): float32 on a GPU means float32."""

import os

import mlx.core as mx
import pytest

from mlx_qwen3asr.runtime.device import TF32_VARIABLE, exact_float32, gpu_path

on_gpu = pytest.mark.skipif(not gpu_path(), reason="needs MLX on a GPU (scripts/gpu_check.sh)")
on_cpu = pytest.mark.skipif(gpu_path(), reason="the CPU's side")


@on_cpu
def test_on_the_cpu_float32_changes_nothing(monkeypatch):
    monkeypatch.delenv(TF32_VARIABLE, raising=False)
    exact_float32(mx.float32)
    assert TF32_VARIABLE not in os.environ, "TF32 is a GPU setting: the CPU's environment stays as it was"


@on_gpu
def test_on_a_gpu_float32_turns_tf32_off_and_half_precision_does_not(monkeypatch):
    monkeypatch.delenv(TF32_VARIABLE, raising=False)
    exact_float32(mx.float16)
    assert TF32_VARIABLE not in os.environ, "float16 asks nothing of TF32"
    exact_float32(mx.float32)
    assert os.environ[TF32_VARIABLE] == "0", "float32 on a GPU must run without TF32"


@on_gpu
def test_a_tf32_setting_of_the_user_stands(monkeypatch):
    monkeypatch.setenv(TF32_VARIABLE, "1")
    exact_float32(mx.float32)
    assert os.environ[TF32_VARIABLE] == "1"
