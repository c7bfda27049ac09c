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

On the CPU the step's matrix-vector products (~2.4 GB of weights read per token for the 0.6B model)
run two at a time, on the default CPU stream and a second one (each stream is its own thread):
q beside k and v, gate beside up, and o_proj, down_proj and the LM head split in halves by output
rows. Each output is the same dot product either way: the logits are bit-identical. Why: a one-row
product is bound by how fast one core streams weights. On the 2-core x86 machine we measure on, one
thread reads ~15 GB/s, a BLAS running one product on two threads no more, two products side by side
~21 GB/s. `blas_share()` gives each stream its share of the BLAS threads while a decode runs.
"""

import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Optional

import mlx.core as mx
import mlx.nn as nn

from .. import blas
from .activations import swiglu
from .attention import attention
from .cache import KVCache
from .rope import rotate_heads


def _on(stream: Optional[mx.Stream]) -> AbstractContextManager:
    return mx.stream(stream) if stream is not None else nullcontext()


def _in_halves(x: mx.array, weight: mx.array, side: Optional[mx.Stream]) -> mx.array:
    """x @ weight.T, the second half of the output rows computed on the side stream."""
    if side is None:
        return x @ weight.T
    half = weight.shape[0] // 2
    with mx.stream(side):
        second = x @ weight[half:].T
    return mx.concatenate([x @ weight[:half].T, second], axis=-1)


def _linear(linear, x: mx.array, side: Optional[mx.Stream]) -> mx.array:
    """linear(x), in halves across the streams when it is a plain nn.Linear (not a quantized one)."""
    if side is None or type(linear) is not nn.Linear:
        return linear(x)
    out = _in_halves(x, linear.weight, side)
    return out + linear.bias if "bias" in linear else out


def _layer(
    layer, x: mx.array, keys: mx.array, values: mx.array, position: mx.array, rotary: tuple, side: Optional[mx.Stream]
):
    attn, mlp = layer.self_attn, layer.mlp
    h = layer.input_layernorm(x)
    with _on(side):
        k, v = attn.k_proj(h), attn.v_proj(h)
    q = rotate_heads(attn.q_norm(attn.q_proj(h).reshape(1, 1, attn.n_heads, -1)), *rotary)
    k = rotate_heads(attn.k_norm(k.reshape(1, 1, attn.n_kv_heads, -1)), *rotary)
    v = v.reshape(1, 1, attn.n_kv_heads, -1).transpose(0, 2, 1, 3)
    keys = mx.slice_update(keys, k, position, axes=(2,))
    values = mx.slice_update(values, v, position, axes=(2,))
    visible = (mx.arange(keys.shape[2]) <= position)[None, None, None]  # a bool mask [1, 1, 1, S]
    out = attention(q, keys, values, attn.scale, visible)
    x = x + _linear(attn.o_proj, out.transpose(0, 2, 1, 3).reshape(1, 1, -1), side)
    h = layer.post_attention_layernorm(x)
    with _on(side):
        gate = mlp.gate_proj(h)
    return x + _linear(mlp.down_proj, swiglu(gate, mlp.up_proj(h)), side), keys, values


def _reserve(layer: KVCache, slots: int) -> None:
    """Make the cache's storage hold `slots` tokens, letting it grow by its own rule (public API only:
    append one zero slot, then forget it)."""
    if slots > layer.keys.shape[2]:
        zero = mx.zeros((*layer.keys.shape[:2], 1, layer.keys.shape[3]), layer.keys.dtype)
        layer.update_and_fetch(zero, zero)
        layer.trim(1)


class DecodeStep:
    """`step(embedding, cache)` -> logits [1, 1, vocab]; the cache (already prefilled) advances one slot.
    `split`: run the products on two CPU streams (default: on the CPU with 2+ cores)."""

    def __init__(self, model, split: Optional[bool] = None):
        self.model = model
        if split is None:
            split = mx.default_device() == mx.cpu and (os.cpu_count() or 1) >= 2
        self.split = split
        self._per_thread = threading.local()

    def blas_share(self, prompt: mx.array) -> AbstractContextManager:
        """Context for a run of steps: each stream gets half the BLAS threads (the step's products
        are then its only BLAS work); nothing to change without a second stream. `prompt` (the
        prefill's result) is evaluated first, so the prompt itself runs on all the threads."""
        if not self.split:
            return nullcontext()
        mx.eval(prompt)
        return blas.threads(blas.thread_count() // 2)

    def _compiled(self) -> Callable:
        """This thread's compiled step: an MLX stream belongs to the thread that made it, and a
        compiled graph to the streams it was traced on (the app decodes on a worker thread)."""
        here = self._per_thread
        if not hasattr(here, "step"):
            side = mx.new_stream(mx.cpu) if self.split else None
            here.step = mx.compile(lambda *arrays: self._step(*arrays, side=side))
        return here.step

    def _step(self, x: mx.array, position: mx.array, keys: list, values: list, side: Optional[mx.Stream]):
        text = self.model.model
        rotary = text.rotary(position[None], x.dtype)
        new_keys, new_values = [], []
        for layer, layer_keys, layer_values in zip(text.layers, keys, values):
            x, layer_keys, layer_values = _layer(layer, x, layer_keys, layer_values, position, rotary, side)
            new_keys.append(layer_keys)
            new_values.append(layer_values)
        return self._logits(text.norm(x), side), new_keys, new_values

    def _logits(self, hidden: mx.array, side: Optional[mx.Stream]) -> mx.array:
        model = self.model
        if not model.args.text.tie_word_embeddings:
            return _linear(model.lm_head, hidden, side)
        if type(model.model.embed_tokens) is nn.Embedding:
            return _in_halves(hidden, model.model.embed_tokens.weight, side)
        return model.logits(hidden)  # a quantized embedding: one product

    def __call__(self, embedding: mx.array, cache: list[KVCache]) -> mx.array:
        position = cache[0].offset
        for layer in cache:
            _reserve(layer, position + 1)
        logits, keys, values = self._compiled()(
            embedding, mx.array([position]), [c.keys for c in cache], [c.values for c in cache]
        )
        for layer, layer_keys, layer_values in zip(cache, keys, values):
            layer.keys, layer.values, layer.offset = layer_keys, layer_values, position + 1
        return logits
