import mlx.core as mx
import numpy as np
import pytest

from mlx_qwen3asr.layers.attention import attention, softmax


def reference(q, k, v, scale, causal):
    """float64 attention with query heads sharing key/value heads in groups."""
    q, k, v = (np.array(a, dtype=np.float64) for a in (q, k, v))
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    scores = scale * q @ k.swapaxes(-1, -2)
    if causal:
        length, keys = q.shape[2], k.shape[2]
        scores[..., np.arange(length)[:, None] + keys - length < np.arange(keys)[None]] = -np.inf
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return (weights / weights.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize(
    "heads, kv_heads, length, keys, causal",
    [(16, 8, 145, 145, True), (16, 8, 40, 145, True), (16, 8, 1, 150, False), (14, 14, 104, 104, False)],
    ids=["prefill", "prefill after a cached prefix", "decode step", "encoder window"],
)
def test_attention_matches_float64_as_closely_as_the_fused_kernel(heads, kv_heads, length, keys, causal):
    q = mx.random.normal((2, heads, length, 64), key=mx.random.key(0))
    k, v = (mx.random.normal((2, kv_heads, keys, 64), key=mx.random.key(i)) for i in (1, 2))
    mask = "causal" if causal else None
    expected = reference(q, k, v, 0.125, causal)
    ours = np.abs(np.array(attention(q, k, v, 0.125, mask)) - expected).max()
    fused = np.abs(np.array(mx.fast.scaled_dot_product_attention(q, k, v, scale=0.125, mask=mask)) - expected).max()
    assert ours <= max(2 * fused, 1e-6), f"ours {ours:.2e} vs mx.fast {fused:.2e}"


def test_softmax_sums_to_one_and_gives_masked_scores_nothing():
    scores = mx.array([[0.0, -1e30, 3.0, -200.0], [88.0, 88.0, -88.0, 0.0]])
    weights = np.array(softmax(scores))
    np.testing.assert_allclose(weights.sum(-1), 1.0, rtol=1e-6)
    assert weights[0, 1] < 1e-37 and weights[0, 3] < 1e-37
    np.testing.assert_allclose(weights[0, [0, 2]], np.exp([0, 3]) / np.exp([0, 3]).sum(), rtol=1e-6)
    np.testing.assert_allclose(weights[1, :2], 0.5, rtol=1e-6)


def test_half_precision_takes_the_fused_kernel():
    q = mx.random.normal((1, 4, 8, 32), key=mx.random.key(3)).astype(mx.float16)
    out = attention(q, q, q, 0.2, "causal")
    assert out.dtype == mx.float16
    expected = mx.fast.scaled_dot_product_attention(q, q, q, scale=0.2, mask="causal")
    assert mx.array_equal(out, expected)


def test_a_nan_or_infinite_score_makes_its_row_nan():
    scores = mx.array([[1.0, float("nan"), 2.0], [1.0, float("inf"), 2.0], [0.0, 1.0, 2.0]])
    out = np.array(softmax(scores))
    assert np.isnan(out[:2]).all() and np.isfinite(out[2]).all()
