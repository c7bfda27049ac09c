"""The CPU allocator keeps freed buffers once a model is loaded, without overriding the user's limit."""

import mlx.core as mx
import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.runtime.allocator import MAX_CPU_CACHE, MLX_CPU_DEFAULT_CACHE_LIMIT, cpu_cache_limit

pytestmark = pytest.mark.skipif(mx.is_available(mx.gpu), reason="GPU backends keep their own allocator's cache")


@pytest.fixture
def default_limit():
    """Start from MLX's own default; put back whatever was there before."""
    before = mx.set_cache_limit(MLX_CPU_DEFAULT_CACHE_LIMIT)
    yield
    mx.set_cache_limit(before)


def current_limit() -> int:
    limit = mx.set_cache_limit(0)
    mx.set_cache_limit(limit)
    return limit


def test_loading_raises_the_cpu_cache_limit(default_limit, tiny_checkpoint):
    mq.load(tiny_checkpoint)
    assert current_limit() == cpu_cache_limit()
    assert MLX_CPU_DEFAULT_CACHE_LIMIT < cpu_cache_limit() <= MAX_CPU_CACHE


def test_a_limit_the_user_set_stands(default_limit, tiny_checkpoint):
    mx.set_cache_limit(5 << 20)
    mq.load(tiny_checkpoint)
    assert current_limit() == 5 << 20


def test_large_freed_buffers_are_reused(default_limit, tiny_checkpoint):
    """A 64 MB array freed and made again comes from the cache, not from the OS."""
    mq.load(tiny_checkpoint)
    mx.clear_cache()
    x = mx.ones((16 << 20,))
    mx.eval(x)
    del x
    assert mx.get_cache_memory() >= 64 << 20
    y = mx.ones((16 << 20,))
    mx.eval(y)
    assert mx.get_cache_memory() < 64 << 20


def test_transcribing_keeps_the_cpu_cache_for_the_next_call(default_limit, tiny_checkpoint):
    model = mq.load(tiny_checkpoint)
    mx.clear_cache()
    rng = np.random.default_rng(0)
    mq.transcribe((0.1 * rng.standard_normal(16000 * 3)).astype(np.float32), model, max_new_tokens=4)
    assert mx.get_cache_memory() > 0
