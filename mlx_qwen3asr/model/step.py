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
result is the unmasked attention's to float32 round-off. The layer wiring below mirrors
decoder.DecoderLayer (same submodules, same order) as a pure function of the cache's arrays: a
compiled function replays its graph, not the Python side effects of KVCache.update_and_fetch.
Qwen3ASR.__call__ sends every one-token step on a one-row cache here; prompts and batches go the
plain way.
"""

import mlx.core as mx

from .attention import softmax
from .cache import KVCache

_MASKED = -1e30


def _attend(q: mx.array, keys: mx.array, values: mx.array, scale: float, visible: mx.array) -> mx.array:
    """q [1, heads, 1, D], keys/values [1, kv_heads, S, D], visible bool [S] -> [1, heads, 1, D]."""
    if mx.default_device() != mx.cpu or q.dtype != mx.float32:
        return mx.fast.scaled_dot_product_attention(q, keys, values, scale=scale, mask=visible)
    heads, kv_heads, dim = q.shape[1], keys.shape[1], q.shape[3]
    scores = (q * scale).reshape(1, kv_heads, heads // kv_heads, dim) @ keys.swapaxes(-1, -2)
    weights = softmax(mx.where(visible, scores, _MASKED))
    return (weights @ values).reshape(1, heads, 1, dim)


def _layer(layer, x: mx.array, keys: mx.array, values: mx.array, position: mx.array):
    attn = layer.self_attn
    h = layer.input_layernorm(x)
    q = attn.q_norm(attn.q_proj(h).reshape(1, 1, attn.n_heads, -1)).transpose(0, 2, 1, 3)
    k = attn.k_norm(attn.k_proj(h).reshape(1, 1, attn.n_kv_heads, -1)).transpose(0, 2, 1, 3)
    v = attn.v_proj(h).reshape(1, 1, attn.n_kv_heads, -1).transpose(0, 2, 1, 3)
    q, k = attn.rope(q, offset=position), attn.rope(k, offset=position)
    keys = mx.slice_update(keys, k, position, axes=(2,))
    values = mx.slice_update(values, v, position, axes=(2,))
    visible = mx.arange(keys.shape[2]) <= position
    out = _attend(q, keys, values, attn.scale, visible)
    x = x + attn.o_proj(out.transpose(0, 2, 1, 3).reshape(1, 1, -1))
    return x + layer.mlp(layer.post_attention_layernorm(x)), keys, values


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
        self._compiled = mx.compile(self._step)

    def _step(self, x: mx.array, position: mx.array, keys: list, values: list):
        text = self.model.model
        new_keys, new_values = [], []
        for layer, layer_keys, layer_values in zip(text.layers, keys, values):
            x, layer_keys, layer_values = _layer(layer, x, layer_keys, layer_values, position)
            new_keys.append(layer_keys)
            new_values.append(layer_values)
        return self.model.logits(text.norm(x)), new_keys, new_values

    def __call__(self, embedding: mx.array, cache: list[KVCache]) -> mx.array:
        position = cache[0].offset
        for layer in cache:
            _reserve(layer, position + 1)
        logits, keys, values = self._compiled(
            embedding, mx.array([position]), [c.keys for c in cache], [c.values for c in cache]
        )
        for layer, layer_keys, layer_values in zip(cache, keys, values):
            layer.keys, layer.values, layer.offset = layer_keys, layer_values, position + 1
        return logits
