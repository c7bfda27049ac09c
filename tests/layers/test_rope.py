"""RoPE: the official implementation's table (float32 frequencies and angles, rotate-half), per row."""

from pathlib import Path

import mlx.core as mx
import numpy as np

from mlx_qwen3asr.layers.rope import inverse_frequencies, rotary_table, rotate_heads, token_positions

HEAD_DIM, THETA = 128, 1_000_000.0
# The official thinker's rotary table for the real 0.6B config (scripts/make_goldens.py --rope-only)
OFFICIAL = np.load(Path(__file__).parents[1] / "fixtures/goldens/rope_0.6b.npz")


def official_rotation(x: np.ndarray, position: int) -> np.ndarray:
    """The official formula for one head vector with the official inverse frequencies: angle =
    position * inv_freq in float32 as torch computes it; cos, sin and the rotation in float64."""
    angles = np.float32(position) * OFFICIAL["inv_freq"]
    cos, sin = np.cos(np.float64(angles)), np.sin(np.float64(angles))
    x1, x2 = np.float64(x[: HEAD_DIM // 2]), np.float64(x[HEAD_DIM // 2 :])
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin])


def test_inverse_frequencies_are_the_officials_to_the_last_bit_but_one_lane():
    """torch 2.13's float32 power is 1 ulp off the correctly rounded one on one lane of 64."""
    ours, official = np.array(inverse_frequencies(HEAD_DIM, THETA)), OFFICIAL["inv_freq"]
    ulps = np.abs(ours.view(np.int32) - official.view(np.int32))
    assert ulps.max() <= 1 and (ulps > 0).sum() <= 1, f"ulps off per lane: {ulps.tolist()}"


def test_rotary_table_matches_the_officials_far_into_a_long_prompt():
    cos, signed_sin = rotary_table(mx.array(OFFICIAL["positions"][None]), HEAD_DIM, THETA, mx.float32)
    half = HEAD_DIM // 2
    np.testing.assert_allclose(np.array(cos)[0, 0, :, 0], OFFICIAL["cos"][:, :half], atol=2e-6)
    np.testing.assert_allclose(np.array(signed_sin)[0, 0, :, 1], OFFICIAL["sin"][:, :half], atol=2e-6)


def test_rotation_matches_the_official_formula_far_into_a_long_prompt():
    """Position 30000 is ~40 minutes of audio tokens; MLX's own fast.rope is off by ~1e-3 there."""
    far = OFFICIAL["positions"].tolist()
    x = np.random.default_rng(0).standard_normal((1, len(far), 1, HEAD_DIM)).astype(np.float32)
    table = rotary_table(mx.array([far]), HEAD_DIM, THETA, mx.float32)
    # each token given its own position: L tokens at the listed positions
    out = np.array(rotate_heads(mx.array(x), *table))[0, 0]
    expected = np.stack([official_rotation(x[0, i, 0], p) for i, p in enumerate(far)])
    assert np.abs(out - expected).max() < 2e-6, f"max error {np.abs(out - expected).max():.2e}"


def test_heads_come_out_first_each_rotated_at_its_token_position():
    x = mx.random.normal((1, 5, 3, HEAD_DIM), key=mx.random.key(1))
    out = rotate_heads(x, *rotary_table(token_positions(7, 5), HEAD_DIM, THETA, mx.float32))
    assert out.shape == (1, 3, 5, HEAD_DIM)
    for token in range(5):
        for head in range(3):
            expected = official_rotation(np.array(x[0, token, head]), 7 + token)
            np.testing.assert_allclose(np.array(out[0, head, token]), expected, atol=2e-6)


def test_batch_rows_rotate_at_their_own_offsets():
    """A BatchKVCache gives each row its own offset: row b's tokens sit at offset[b], offset[b] + 1, ..."""
    assert token_positions(mx.array([3, 10]), 2).tolist() == [[3, 4], [10, 11]]
    x = mx.random.normal((2, 2, 4, HEAD_DIM), key=mx.random.key(2))
    batched = rotate_heads(x, *rotary_table(token_positions(mx.array([3, 10]), 2), HEAD_DIM, THETA, mx.float32))
    for row, offset in enumerate((3, 10)):
        alone = rotate_heads(x[row : row + 1], *rotary_table(token_positions(offset, 2), HEAD_DIM, THETA, mx.float32))
        assert mx.array_equal(batched[row : row + 1], alone), f"row {row} differs from its own rotation"


def test_half_precision_heads_stay_in_their_dtype():
    x = mx.random.normal((1, 3, 2, HEAD_DIM)).astype(mx.float16)
    out = rotate_heads(x, *rotary_table(token_positions(0, 3), HEAD_DIM, THETA, mx.float16))
    assert out.dtype == mx.float16
