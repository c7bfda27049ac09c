"""Decoder + KV cache: incremental decoding must equal the full causal forward pass."""

import mlx.core as mx
import numpy as np

from mlx_qwen3asr.model.cache import KVCache


def test_cached_decoding_equals_the_full_forward_pass(tiny_model):
    ids = mx.array(np.random.default_rng(0).integers(0, 151000, size=40))
    embeddings = tiny_model.embed(ids)
    full = np.array(tiny_model(embeddings, last_only=False))[0]
    cache = tiny_model.make_cache()
    prefill = np.array(tiny_model(embeddings[:, :30], cache))[0, -1]
    steps = [np.array(tiny_model(embeddings[:, i : i + 1], cache))[0, -1] for i in range(30, 40)]
    tolerance = 1e-5 * np.abs(full).max()  # float32 round-off; logits reach ~100 with these weights
    np.testing.assert_allclose(prefill, full[29], atol=tolerance, err_msg="prefill logits differ from full pass")
    np.testing.assert_allclose(np.stack(steps), full[30:], atol=tolerance, err_msg="cached steps differ")


def test_prefilling_a_tail_on_a_cache_equals_the_full_forward_pass(tiny_model):
    ids = mx.array(np.random.default_rng(1).integers(0, 151000, size=24))
    embeddings = tiny_model.embed(ids)
    full = np.array(tiny_model(embeddings, last_only=False))[0]
    cache = tiny_model.make_cache()
    tiny_model(embeddings[:, :10], cache)
    tail = np.array(tiny_model(embeddings[:, 10:], cache, last_only=False))[0]
    tolerance = 1e-5 * np.abs(full).max()
    np.testing.assert_allclose(tail, full[10:], atol=tolerance, err_msg="a multi-token tail must be causal")


def test_kv_cache_grows_past_its_step_and_keeps_earlier_entries():
    cache = KVCache()
    chunks = [mx.full((1, 2, n, 4), float(i)) for i, n in enumerate((200, 100, 1))]
    for chunk in chunks:
        keys, values = cache.update_and_fetch(chunk, chunk)
    assert cache.offset == 301 and keys.shape == (1, 2, 301, 4), f"offset {cache.offset}, shape {keys.shape}"
    assert keys[0, 0, :, 0].tolist() == [0.0] * 200 + [1.0] * 100 + [2.0], "cache lost earlier entries"
    assert cache.trim(5) == 5 and cache.offset == 296, "trim must forget the last tokens"
