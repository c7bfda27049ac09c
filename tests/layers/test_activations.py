import math

import mlx.core as mx
import numpy as np
import pytest

from mlx_qwen3asr.layers.activations import clamp_magnitude, clip_symmetric, gelu, swiglu

X = np.linspace(-40, 40, 400_001).astype(np.float32)
X64 = X.astype(np.float64)


def exact_gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def exact_silu(x: np.ndarray) -> np.ndarray:
    return x / (1 + np.exp(-x))


def test_gelu_is_the_erf_gelu_to_float32_round_off():
    error = np.abs(np.array(gelu(mx.array(X))) - exact_gelu(X64))
    assert error[np.abs(X) <= 8].max() <= 1.5e-6  # ~2 float32 ulps at |gelu| ~ 5
    assert error.max() <= 4e-6  # |x| = 40: 2 ulps of x / 2, like (1 + erf) in float32
    assert np.array(gelu(mx.array(X[X > 6]))).tolist() == pytest.approx(X[X > 6].tolist(), rel=3e-7)


def test_swiglu_is_silu_gate_times_up_to_float32_round_off():
    up = np.cos(X).astype(np.float32)
    out = np.array(swiglu(mx.array(X), mx.array(up)))
    error = np.abs(out - exact_silu(X64) * up)
    assert error[np.abs(X) <= 8].max() <= 2e-6
    assert (error / np.maximum(np.abs(X64), 1)).max() <= 4e-7  # a few float32 ulps of the gate


@pytest.mark.parametrize("dtype", [mx.float16, mx.bfloat16])
def test_half_precision_keeps_its_dtype_and_never_overflows(dtype):
    x = mx.array(np.linspace(-60, 60, 10_001)).astype(dtype)
    reference = exact_gelu(np.array(x.astype(mx.float32)).astype(np.float64))
    out = gelu(x)
    assert out.dtype == dtype
    assert np.all(np.isfinite(np.array(out.astype(mx.float32))))
    np.testing.assert_allclose(np.array(out.astype(mx.float32)), reference, atol=0.25, rtol=1e-2)
    assert swiglu(x, mx.ones_like(x)).dtype == dtype


def test_nan_propagates():
    nan = mx.array([float("nan")])
    assert math.isnan(gelu(nan).item()) and math.isnan(swiglu(nan, mx.ones(1)).item())


def test_clamp_magnitude_is_the_float_minimum_bit_for_bit():
    values = np.concatenate([np.abs(X), [0.0, 1e-45, 1e-38, np.inf, 3.4e38]]).astype(np.float32)
    for limit in (4 * math.sqrt(2), 87.0, 1e-40):
        got = clamp_magnitude(mx.array(values), limit)
        assert np.array_equal(np.array(got), np.minimum(values, np.float32(limit)))


def test_clip_symmetric_is_mx_clip_bit_for_bit():
    values = np.concatenate([X, [0.0, -0.0, 1e-45, -1e-45, np.inf, -np.inf]]).astype(np.float32)
    got = np.array(clip_symmetric(mx.array(values), 15.8))
    assert np.array_equal(got, np.array(mx.clip(mx.array(values), -15.8, 15.8)))
    assert np.array_equal(np.signbit(got), np.signbit(values))
