"""The CIF on the host against funasr's cif_v1 (tokens) and cif_wo_hidden (timestamps) on made-up alphas,
whole numbers reached exactly and float32 0.1 steps included (tests/fixtures/paraformer/cif.npz)."""

import numpy as np
import pytest
from paraformer_goldens import GOLDENS

from mlx_qwen3asr.families.paraformer.cif import fire, fire_loop, integrate, total


@pytest.fixture(scope="module")
def cases():
    return dict(np.load(GOLDENS / "cif.npz"))


@pytest.mark.parametrize("b", [0, 1, 2])
def test_fires_are_funasr_ones_bit_for_bit(cases, b):
    fires, _ = fire(cases["alphas"][b])
    np.testing.assert_array_equal(fires, cases[f"fires{b}"])


@pytest.mark.parametrize("b", [0, 1, 2])
def test_token_rows_match_cif_v1(cases, b):
    alphas, hidden = cases["alphas"][b], cases["hidden"][b]
    fires, fired = fire(alphas)
    want = cases[f"embeds{b}"]  # round(sum) rows, as cif_v1 gives them before the caller cuts them
    rows = integrate(hidden, alphas, fires, fired, int(np.round(total(alphas))))
    # the same float32 operations in the same order; prefix sums of ~200 rows of N(0, 1): measured 0
    np.testing.assert_allclose(rows, want, atol=1e-5, rtol=0)


@pytest.mark.parametrize("b", [0, 1, 2])
def test_the_sequential_loop_is_cif_wo_hidden_bit_for_bit(cases, b):
    np.testing.assert_array_equal(fire_loop(cases["alphas"][b], 1.0 - 1e-4), cases[f"loop{b}"])
