"""The compiled decode step (model/step.py) gives exactly the tokens and logits of the plain step."""

import mlx.core as mx
import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.model.step import DecodeStep


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
