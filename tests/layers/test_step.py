"""The compiled decode step (layers/step.py) gives exactly the tokens and logits of the plain step, its
work on one CPU stream or two."""

import threading

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.generate import generate_steps
from mlx_qwen3asr.layers.step import DecodeStep
from mlx_qwen3asr.runtime import blas
from mlx_qwen3asr.runtime.two_streams import side_stream, two_streams


def plain_tokens(model, embeddings, cache, n):
    """The decoder stepped without the compiled path (TextModel directly)."""
    y = mx.argmax(model(embeddings, cache)[:, -1], axis=-1)
    out = [y.item()]
    for _ in range(n - 1):
        y = mx.argmax(model.logits(model.model(model.model.embed_tokens(y)[None], cache))[:, -1], axis=-1)
        out.append(y.item())
    return out


def compiled_tokens(model, embeddings, cache, n):
    step = DecodeStep(model)
    y = mx.argmax(model(embeddings, cache)[:, -1], axis=-1)
    out = [y.item()]
    for _ in range(n - 1):
        y = mx.argmax(step(model.model.embed_tokens(y)[None], cache)[:, -1], axis=-1)
        out.append(y.item())
    return out


def test_compiled_steps_give_the_plain_steps_tokens_across_a_cache_growth(tiny_model):
    ids = mx.array(np.random.default_rng(0).integers(0, 151000, size=200))
    embeddings = tiny_model.embed(ids)
    plain = plain_tokens(tiny_model, embeddings, tiny_model.make_cache(), 120)  # 200 + 120 > 256 slots
    cache = tiny_model.make_cache()
    compiled = compiled_tokens(tiny_model, embeddings, cache, 120)
    first = next((i for i, (a, b) in enumerate(zip(plain, compiled)) if a != b), None)
    assert compiled == plain, f"tokens differ from step {first}"
    assert cache[0].offset == 200 + 119, f"the cache must hold the prompt and every fed token, got {cache[0].offset}"


def test_a_compiled_step_after_a_trim_ignores_the_forgotten_slots(tiny_model):
    ids = mx.array(np.random.default_rng(1).integers(0, 151000, size=40))
    embeddings = tiny_model.embed(ids)
    cache = tiny_model.make_cache()
    tiny_model(embeddings, cache)
    for layer in cache:
        layer.trim(10)  # slots 30..39 still hold keys, now stale
    compiled = DecodeStep(tiny_model)(embeddings[:, 30:31], cache)
    fresh = tiny_model.make_cache()
    tiny_model(embeddings[:, :30], fresh)
    plain = tiny_model.logits(tiny_model.model(embeddings[:, 30:31], fresh))
    np.testing.assert_allclose(np.array(compiled), np.array(plain), atol=1e-4, err_msg="stale slots leaked in")
    assert cache[0].offset == 31, f"the cache must advance by one slot, got {cache[0].offset}"


def test_the_fused_kernel_branch_used_on_gpus_and_in_half_precision_gives_the_plain_tokens(tiny_checkpoint):
    model = mq.load(tiny_checkpoint, dtype="float16")  # float16 takes mx.fast.scaled_dot_product_attention
    embeddings = model.embed(mx.array(np.random.default_rng(2).integers(0, 151000, size=30)))
    plain = plain_tokens(model, embeddings, model.make_cache(), 20)
    assert compiled_tokens(model, embeddings, model.make_cache(), 20) == plain, "half-precision step differs"


def split_and_single_steps(model, n):
    """Tokens and logits of n greedy steps with the products on two CPU streams and on one, from the
    same prompt (each mode fed its own tokens)."""
    embeddings = model.embed(mx.array(np.random.default_rng(3).integers(0, 151000, size=250)))
    out = []
    for split in (True, False):
        step, cache = DecodeStep(model), model.make_cache()
        with two_streams(split):
            assert (side_stream() is not None) == split, "the test machine has 2+ cores and runs MLX on the CPU"
            y = mx.argmax(model(embeddings, cache)[:, -1], axis=-1)
            tokens, logits = [y.item()], []
            for _ in range(n):  # 250 + n > 256 slots: the storage grows on the way
                logits.append(step(model.model.embed_tokens(y)[None], cache))
                y = mx.argmax(logits[-1][:, -1], axis=-1)
                tokens.append(y.item())
            out.append((tokens, np.array(mx.concatenate(logits, axis=1))))
    return out


def assert_same_tokens_and_round_off(split, single):
    """Two streams cut products by output rows (another kernel may be picked for a half-width product)
    and give each stream half the BLAS threads (a BLAS may sum in another order on fewer threads): the
    same tokens, logits within float32 round-off (1e-5 of their range), not always the same bits."""
    assert split[0] == single[0], "the same greedy tokens on one stream and on two"
    np.testing.assert_allclose(split[1], single[1], rtol=0, atol=1e-5 * np.abs(single[1]).max())


def test_steps_on_two_streams_give_the_tokens_of_one_stream(tiny_model):
    assert_same_tokens_and_round_off(*split_and_single_steps(tiny_model, 12))


def test_steps_on_two_streams_with_quantized_weights_give_the_tokens_of_one_stream(tiny_checkpoint):
    model = mq.load(tiny_checkpoint, dtype="float32")
    nn.quantize(model.model, group_size=32, bits=8)  # QuantizedLinear / QuantizedEmbedding run whole
    assert_same_tokens_and_round_off(*split_and_single_steps(model, 6))


def test_the_same_steps_on_two_streams_give_the_same_bits_every_time(tiny_model):
    """Determinism: the same input in the same mode, after other work of other shapes in between."""
    first = split_and_single_steps(tiny_model, 8)
    tiny_model.encode(mx.random.normal((1700, 128), key=mx.random.key(1)))  # other products, other sizes
    tiny_model(tiny_model.embed(mx.array(np.arange(300))))
    again = split_and_single_steps(tiny_model, 8)
    for (tokens, logits), (tokens_again, logits_again) in zip(first, again):
        assert tokens == tokens_again
        np.testing.assert_array_equal(logits_again, logits, err_msg="the same input gave other bits")


def test_a_one_row_decode_shares_the_blas_threads_between_the_streams_and_gives_them_back(tiny_model):
    if not blas.thread_count():
        pytest.skip("no BLAS with a thread count is preloaded (scripts/test.sh preloads one on Linux)")
    embeddings = tiny_model.embed(mx.array(np.random.default_rng(4).integers(0, 151000, size=20)))
    with blas.threads(2):
        during = [blas.thread_count() for _ in generate_steps(tiny_model, embeddings, tiny_model.make_cache(), 4)]
        assert during == [1, 1, 1, 1], "each of the two streams gets half of the 2 threads"
        assert blas.thread_count() == 2, "the count comes back once the decode ends"
        tiny_model(embeddings, tiny_model.make_cache())  # a prompt (not a step) keeps both threads
        assert blas.thread_count() == 2


def test_a_step_made_on_one_thread_runs_on_another(tiny_model):
    """The app builds the model on the main thread and decodes on a worker (MLX streams are per thread)."""
    step = DecodeStep(tiny_model)
    embeddings = tiny_model.embed(mx.array(np.random.default_rng(5).integers(0, 151000, size=20)))
    logits = {}

    def run(name):
        cache = tiny_model.make_cache()
        with two_streams():  # each thread its own side stream
            tiny_model(embeddings, cache)
            logits[name] = np.array(step(embeddings[:, -1:], cache))

    run("main")
    worker = threading.Thread(target=run, args=("worker",))
    worker.start()
    worker.join()
    np.testing.assert_array_equal(logits["worker"], logits["main"])
