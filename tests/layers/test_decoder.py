"""Decoder + KV cache: incremental decoding must equal the full causal forward pass, on one CPU stream or two."""

import mlx.core as mx
import numpy as np
import pytest

from mlx_qwen3asr.layers.cache import KVCache, batch_cache
from mlx_qwen3asr.runtime import blas
from mlx_qwen3asr.runtime.two_streams import side_stream, two_streams


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


def forward_on_one_and_two_streams(model, run):
    """run(model) -> arrays, evaluated once on one CPU stream and once in halves on two."""
    out = []
    for split in (False, True):
        with two_streams(split):
            assert (side_stream() is not None) == split, "the test machine has 2+ cores and runs MLX on the CPU"
            out.append([np.array(a) for a in run(model)])
    return out


def assert_round_off(split, single):
    """The same dot products, cut by output rows: a BLAS may take another kernel for a half-width
    product (another summation order), so float32 round-off, no more."""
    np.testing.assert_allclose(split, single, rtol=0, atol=1e-5 * np.abs(single).max())


def test_a_forward_pass_in_halves_on_two_streams_gives_the_logits_and_cache_of_one_stream(tiny_model):
    embeddings = tiny_model.embed(mx.array(np.random.default_rng(2).integers(0, 151000, size=37)))

    def prefill_then_tail(model):
        cache = model.make_cache()
        head = model(embeddings[:, :30], cache)
        tail = model(embeddings[:, 30:], cache, last_only=False)  # a prompt on a filled cache
        return [head, tail, cache[0].keys[..., : cache[0].offset, :], cache[-1].values[..., : cache[-1].offset, :]]

    one, two = forward_on_one_and_two_streams(tiny_model, prefill_then_tail)
    for single, split in zip(one, two):
        assert_round_off(split, single)


def test_a_batch_in_halves_on_two_streams_gives_the_logits_of_one_stream(tiny_model):
    rng = np.random.default_rng(3)
    prompts = [tiny_model.embed(mx.array(rng.integers(0, 151000, size=n))) for n in (12, 20)]

    def batch_step(model):
        caches = [model.make_cache() for _ in prompts]
        firsts = [mx.argmax(model(p, c)[:, -1], axis=-1) for p, c in zip(prompts, caches)]
        cache = batch_cache(caches, consume=True)
        return [model(model.model.embed_tokens(mx.concatenate(firsts))[:, None], cache)]

    one, two = forward_on_one_and_two_streams(tiny_model, batch_step)
    assert_round_off(two[0], one[0])


def test_two_streams_share_the_blas_threads_and_give_them_back(tiny_model):
    if not blas.thread_count():
        pytest.skip("no BLAS with a thread count is preloaded (scripts/test.sh preloads one on Linux)")
    with blas.threads(2):
        with two_streams():
            assert blas.thread_count() == 1, "each of the two streams gets half of the 2 threads"
            with two_streams():  # nested: the outer block rules
                assert blas.thread_count() == 1 and side_stream() is not None
            assert side_stream() is not None
        assert blas.thread_count() == 2 and side_stream() is None
