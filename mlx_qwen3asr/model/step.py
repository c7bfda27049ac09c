"""One decode step of one row as a single compiled graph: embedding -> logits, on a list of KVCache.

    embedding [1, 1, hidden], position p = the cache's offset
      -> N x (RMSNorm -> q/k/v -> q/k RMSNorm -> RoPE at p
         -> the new key/value written into the cache's storage at slot p
         -> attention over the WHOLE storage [kv_heads, capacity, head_dim], slots after p masked
         -> o_proj -> residual -> RMSNorm -> SwiGLU MLP -> residual)
      -> RMSNorm -> LM head -> logits [1, 1, vocab]; the cache's offset becomes p + 1

Why: besides its matrix-vector products a step is ~1000 small operations (norms, RoPE, cache
writes, attention, residuals), each dispatched on its own. Traced once per cache capacity and run
through `mx.compile`, the step keeps the same graph from token to token and its elementwise chains
fuse. The shapes must not change between steps for that: the cache's preallocated storage (grown
256 slots at a time by KVCache) is attended to whole, with a mask instead of a slice, so a step
reads the same shapes until the storage grows. The masked slots carry weight exp(-1e30) = 0: the
result is the unmasked attention's to float32 round-off. The layer below is decoder.DecoderLayer's
wiring from its own parts (Attention.project and .attend, the MLP), with the cache as arrays: a
compiled function replays its graph, not the Python side effects of KVCache.update_and_fetch.
Qwen3ASR.__call__ sends every one-token step on a one-row cache here; prompts and batches go the
plain way.

Inside streams.two_streams() (decoding on the CPU) the step's work runs on two CPU streams: q beside
k and v, gate beside up (a one-token layer's split, decoder.py), then o_proj, down_proj and the LM
head by halves of their output rows. Why for the step: a one-row product is bound
by how fast one core streams weights (~2.4 GB per token for the 0.6B model). On the 2-core x86
machine we measure on, one thread reads ~15 GB/s, a BLAS running one product on two threads no more,
two products side by side ~21 GB/s. The logits are bit-identical to one stream's.
"""

import threading
from collections.abc import Callable
from typing import Optional

import mlx.core as mx

from .cache import KVCache
from .streams import linear_halves, side_stream


def _layer(
    layer, x: mx.array, keys: mx.array, values: mx.array, position: mx.array, rotary: tuple, side: Optional[mx.Stream]
):
    attn = layer.self_attn
    queries, k, v = attn.project(layer.input_layernorm(x), rotary, side)
    keys = mx.slice_update(keys, k, position, axes=(2,))
    values = mx.slice_update(values, v, position, axes=(2,))
    visible = (mx.arange(keys.shape[2]) <= position)[None, None, None]  # a bool mask [1, 1, 1, S]
    out = attn.attend(queries, keys, values, visible, side)
    x = x + linear_halves(attn.o_proj, out.transpose(0, 2, 1, 3).reshape(1, 1, -1), side)
    return x + layer.mlp(layer.post_attention_layernorm(x), side), keys, values


def _reserve(layer: KVCache, slots: int) -> None:
    """Make the cache's storage hold `slots` tokens, letting it grow by its own rule (public API only:
    append one zero slot, then forget it)."""
    if slots > layer.keys.shape[2]:
        zero = mx.zeros((*layer.keys.shape[:2], 1, layer.keys.shape[3]), layer.keys.dtype)
        layer.update_and_fetch(zero, zero)
        layer.trim(1)


class DecodeStep:
    """`step(embedding, cache)` -> logits [1, 1, vocab]; the cache (already prefilled) advances one slot."""

    def __init__(self, model):
        self.model = model
        self._per_thread = threading.local()

    def _compiled(self, side: Optional[mx.Stream]) -> Callable:
        """This thread's compiled step, on one stream or with `side`: an MLX stream belongs to the thread
        that made it, and a compiled graph to the streams it was traced on (the app decodes on a worker)."""
        steps = self._per_thread.__dict__.setdefault("steps", {})
        key = side is not None  # a thread has one side stream (streams._own_side_stream)
        if key not in steps:
            steps[key] = mx.compile(lambda *arrays: self._step(*arrays, side=side))
        return steps[key]

    def _step(self, x: mx.array, position: mx.array, keys: list, values: list, side: Optional[mx.Stream]):
        text = self.model.model
        rotary = text.rotary(position[None], x.dtype)
        new_keys, new_values = [], []
        for layer, layer_keys, layer_values in zip(text.layers, keys, values):
            x, layer_keys, layer_values = _layer(layer, x, layer_keys, layer_values, position, rotary, side)
            new_keys.append(layer_keys)
            new_values.append(layer_values)
        return self.model.logits(text.norm(x), side), new_keys, new_values

    def __call__(self, embedding: mx.array, cache: list[KVCache]) -> mx.array:
        position = cache[0].offset
        for layer in cache:
            _reserve(layer, position + 1)
        logits, keys, values = self._compiled(side_stream())(
            embedding, mx.array([position]), [c.keys for c in cache], [c.values for c in cache]
        )
        for layer, layer_keys, layer_values in zip(cache, keys, values):
            layer.keys, layer.values, layer.offset = layer_keys, layer_values, position + 1
        return logits
