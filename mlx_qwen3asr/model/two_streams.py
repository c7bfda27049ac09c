"""A CPU tactic, swapped in at load time: each layer's work in two halves on two CPU streams.

    load() on the CPU -> install(model): the layers' classes become the two-stream ones below
    (same modules, same weights, same checkpoint names; as mlx-lm's shard() swaps in sharded linears)
    with two_streams():            (the decode loop, the encoder's entry points, the aligner)
        each swapped layer asks side_stream() and, given one, splits its work:
        heads 0..H/2 on this thread's default stream | heads H/2..H on the side stream
        (q/k/v rows, norms, RoPE, attention, per head), then each product's output rows in halves
        (o_proj, the MLP's gate/up + SwiGLU, down_proj, the LM head), joined by a concatenation
    outside the block (or off the CPU, or on one core) each layer runs its plain wiring

Why: MLX's CPU backend runs each elementwise operation on one thread, and a BLAS product over all
cores synchronises its threads inside every call. Two streams (each its own thread) with one BLAS
thread each run the elementwise work on both cores, and their products never wait on each other
inside a call. Measured on the 2-core machine (docs/performance.md): the encoder 1.06-1.13x and the
prefill 1.02-1.05x faster when the machine is quiet; under background load ~1.8x faster, where a
two-thread product waits on whichever of its threads the scheduler took the core from. A decode step
(one token) keeps q beside k/v and gate beside up: fewer, larger operations were faster there.

Exactness: each output is the same dot product either way, but a BLAS may pick another kernel for a
half-width product, so split and plain results agree to float32 round-off, not always to the bit
(tests: same tokens, logits within a stated tolerance). Neither depends on history: the same input in
the same mode gives the same bits every time (blas_router.c routes by the product's shape alone).

Streams belong to the thread that made them (the app decodes on a worker thread), so each thread
has its own side stream. The BLAS thread count is process-wide: two_streams() is for a block that is
the process's only BLAS work meanwhile.
"""

import functools
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Optional

import mlx.core as mx
import mlx.nn as nn

from .. import blas
from .activations import gelu, swiglu
from .attention import attention
from .decoder import MLP, Attention
from .encoder import AudioAttention, AudioEncoder, AudioEncoderLayer, windowed_attention
from .rope import rotate_heads

_per_thread = threading.local()


def _can_split() -> bool:
    """Two streams pay on the CPU backend with two or more cores (and a BLAS not held to one thread)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return mx.default_device() == mx.cpu and cores >= 2 and blas.thread_count() != 1


def _own_side_stream() -> mx.Stream:
    """This thread's second CPU stream (made on first use)."""
    if not hasattr(_per_thread, "side"):
        _per_thread.side = mx.new_stream(mx.cpu)
    return _per_thread.side


def side_stream() -> Optional[mx.Stream]:
    """The side stream inside two_streams() on this thread, else None (work on one stream)."""
    return getattr(_per_thread, "block", None) or None


@contextmanager
def two_streams(enabled: bool = True) -> Iterator[None]:
    """Within the block, layers on this thread split their work over two CPU streams, each stream with
    half the BLAS threads; all of it is finished when the block ends. Off the CPU or on one core it
    changes nothing. A block inside another changes nothing either: `two_streams(False)` around a
    call keeps all of it on one stream."""
    if getattr(_per_thread, "block", None) is not None:
        yield
        return
    side = _own_side_stream() if enabled and _can_split() else False
    _per_thread.block = side
    try:
        if not side:
            yield
            return
        with blas.threads(blas.thread_count() // 2):
            try:
                yield
            finally:  # the thread count changes back only once no product of the block still runs
                mx.synchronize(side)
                mx.synchronize()
    finally:
        _per_thread.block = None


def evaluated_on_two_streams(function: Callable) -> Callable:
    """Decorator: `function` runs inside two_streams() and its result (arrays, or lists of them) is
    evaluated there, before the block gives the BLAS threads back."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        with two_streams():
            out = function(*args, **kwargs)
            mx.eval(out)
        return out

    return run


def on(stream: Optional[mx.Stream], work: Callable, *args):
    """work(*args) with its operations on `stream` (None: the default stream)."""
    if stream is None:
        return work(*args)
    with mx.stream(stream):
        return work(*args)


def halves(work: Callable[[int, int], mx.array], side: Optional[mx.Stream], axis: int = -1) -> mx.array:
    """work(part, parts) for part 0 on the default stream and part 1 on `side`, joined along `axis`;
    work(0, 1) alone without a side stream."""
    if side is None:
        return work(0, 1)
    second = on(side, work, 1, 2)
    return mx.concatenate([work(0, 2), second], axis=axis)


def splits(*linears: nn.Module) -> bool:
    """Whether these projections can be cut by output rows (nn.Linear, not quantized)."""
    return all(isinstance(linear, nn.Linear) for linear in linears)


def row_part(weight: mx.array, part: int, parts: int) -> mx.array:
    """Rows [part/parts, (part+1)/parts) of a weight (a view, no copy)."""
    size = weight.shape[0] // parts
    return weight if parts == 1 else weight[part * size : (part + 1) * size]


def linear_part(linear: nn.Module, x: mx.array, part: int, parts: int) -> mx.array:
    """Output features [part/parts, (part+1)/parts) of linear(x) (all of them when parts == 1)."""
    if parts == 1:
        return linear(x)
    out = x @ row_part(linear.weight, part, parts).T
    return out + row_part(linear.bias, part, parts) if "bias" in linear else out


def linear_halves(linear: nn.Module, x: mx.array, side: Optional[mx.Stream]) -> mx.array:
    """linear(x), its output rows in halves across the streams (whole when it cannot be cut)."""
    if side is None or not splits(linear):
        return linear(x)
    return halves(lambda part, parts: linear_part(linear, x, part, parts), side)


class TwoStreamLinear(nn.Linear):
    """An LM head whose output rows (the vocabulary) are computed in halves, one on each stream."""

    def __call__(self, x: mx.array) -> mx.array:
        side = side_stream()
        if side is None:
            return super().__call__(x)
        return halves(lambda part, parts: linear_part(self, x, part, parts), side)


class TwoStreamEmbedding(nn.Embedding):
    """The tied LM head (as_linear) by halves of the vocabulary."""

    def as_linear(self, x: mx.array) -> mx.array:
        side = side_stream()
        if side is None:
            return super().as_linear(x)
        return halves(lambda part, parts: x @ row_part(self.weight, part, parts).T, side)


class TwoStreamAttention(Attention):
    """A prompt: each half of the heads on its own stream. One token: q here beside k and v there."""

    def _queries(self, x: mx.array, rotary: tuple, part: int, parts: int) -> mx.array:
        B, L, _ = x.shape
        q = linear_part(self.q_proj, x, part, parts).reshape(B, L, self.n_heads // parts, -1)
        return rotate_heads(self.q_norm(q), *rotary)

    def _keys_values(self, x: mx.array, rotary: tuple, part: int, parts: int) -> tuple[mx.array, mx.array]:
        B, L, _ = x.shape
        k = linear_part(self.k_proj, x, part, parts).reshape(B, L, self.n_kv_heads // parts, -1)
        v = linear_part(self.v_proj, x, part, parts).reshape(B, L, self.n_kv_heads // parts, -1)
        return rotate_heads(self.k_norm(k), *rotary), v.transpose(0, 2, 1, 3)

    def __call__(self, x: mx.array, mask=None, cache=None, rotary: tuple = (), last_only: bool = False) -> mx.array:
        side = side_stream()
        if side is None or not splits(self.q_proj, self.k_proj, self.v_proj):
            return super().__call__(x, mask, cache, rotary, last_only)
        if x.shape[1] == 1:
            k, v = on(side, self._keys_values, x, rotary, 0, 1)
            queries = [self._queries(x, rotary, 0, 1)]
        else:
            kv = [self._keys_values(x, rotary, 0, 2), on(side, self._keys_values, x, rotary, 1, 2)]
            queries = [self._queries(x, rotary, 0, 2), on(side, self._queries, x, rotary, 1, 2)]
            k, v = (mx.concatenate([part[i] for part in kv], axis=1) for i in (0, 1))  # the cache takes all
        if cache is not None:
            k, v = cache.update_and_fetch(k, v)
        if last_only:
            queries = [q[:, :, -1:] for q in queries]
            mask = mask[..., -1:, :] if isinstance(mask, mx.array) else None
        kv_heads = k.shape[1] // len(queries)

        def one_part(part: int, parts: int) -> mx.array:
            heads = slice(part * kv_heads, (part + 1) * kv_heads)
            keys, values = (k, v) if parts == 1 else (k[:, heads], v[:, heads])
            return attention(queries[part], keys, values, self.scale, mask)

        out = halves(one_part, side if len(queries) > 1 else None, axis=1)
        B, L = out.shape[0], out.shape[2]
        return linear_halves(self.o_proj, out.transpose(0, 2, 1, 3).reshape(B, L, -1), side)


class TwoStreamMLP(MLP):
    """A prompt: each half of the hidden features on its own stream. One token: gate there beside up here."""

    def __call__(self, x: mx.array) -> mx.array:
        side = side_stream()
        if side is None or not splits(self.gate_proj, self.up_proj):
            return super().__call__(x)
        if x.shape[1] == 1:
            return linear_halves(self.down_proj, swiglu(on(side, self.gate_proj, x), self.up_proj(x)), side)

        def gated(part: int, parts: int) -> mx.array:
            return swiglu(linear_part(self.gate_proj, x, part, parts), linear_part(self.up_proj, x, part, parts))

        return linear_halves(self.down_proj, halves(gated, side), side)


class TwoStreamAudioAttention(AudioAttention):
    """Each half of the heads on its own stream."""

    def __call__(self, x: mx.array, windows) -> mx.array:
        side = side_stream()
        if side is None or not splits(self.q_proj, self.k_proj, self.v_proj) or self.n_heads % 2:
            return super().__call__(x, windows)

        def heads(part: int, parts: int) -> mx.array:
            q, k, v = (linear_part(linear, x, part, parts) for linear in (self.q_proj, self.k_proj, self.v_proj))
            return windowed_attention(q, k, v, self.n_heads // parts, windows)

        return linear_halves(self.out_proj, halves(heads, side), side)


def feed_forward(first: nn.Module, second: nn.Module, x: mx.array, side: mx.Stream) -> mx.array:
    """second(gelu(first(x))), each half of the hidden features on its own stream."""
    hidden = halves(lambda part, parts: gelu(linear_part(first, x, part, parts)), side if splits(first) else None)
    return linear_halves(second, hidden, side)


class TwoStreamAudioEncoderLayer(AudioEncoderLayer):
    """The feed-forward's hidden features (fc1 + GELU) in halves, one on each stream."""

    def __call__(self, x: mx.array, windows) -> mx.array:
        side = side_stream()
        if side is None:
            return super().__call__(x, windows)
        x = x + self.self_attn(self.self_attn_layer_norm(x), windows)
        return x + feed_forward(self.fc1, self.fc2, self.final_layer_norm(x), side)


class TwoStreamAudioEncoder(AudioEncoder):
    """The entry points inside two_streams(), the conv stem by halves of its chunks, the output head
    as the layers' feed-forward."""

    def head(self, x: mx.array) -> mx.array:
        side = side_stream()
        if side is None:
            return super().head(x)
        return feed_forward(self.proj1, self.proj2, self.ln_post(x), side)

    def _stem(self, chunks: mx.array) -> mx.array:
        side = side_stream()
        if side is None or chunks.shape[0] == 1:
            return super()._stem(chunks)
        half = chunks.shape[0] // 2
        return halves(
            lambda part, _: super(TwoStreamAudioEncoder, self)._stem(chunks[half:] if part else chunks[:half]),
            side,
            axis=0,
        )

    embed_chunks_of = evaluated_on_two_streams(AudioEncoder.embed_chunks_of)
    encode_many = evaluated_on_two_streams(AudioEncoder.encode_many)
    encode_tokens = evaluated_on_two_streams(AudioEncoder.encode_tokens)


# plain class -> its two-stream version; a module is swapped only when its class is exactly the key
# (a quantized one keeps its own). The linears inside split their products where these classes say.
SWAPS = {
    nn.Embedding: TwoStreamEmbedding,
    Attention: TwoStreamAttention,
    MLP: TwoStreamMLP,
    AudioAttention: TwoStreamAudioAttention,
    AudioEncoderLayer: TwoStreamAudioEncoderLayer,
    AudioEncoder: TwoStreamAudioEncoder,
}


def install(model: nn.Module) -> nn.Module:
    """Swap the two-stream versions into `model` (in place; same weights, same names) when MLX runs on
    the CPU. Quantized modules keep their class (their products run whole)."""
    if mx.default_device() != mx.cpu:
        return model
    for _, module in model.named_modules():
        swap = SWAPS.get(type(module))
        if swap is not None:
            module.__class__ = swap
    if type(getattr(model, "lm_head", None)) is nn.Linear:  # an untied LM head, the aligner's classifier
        model.lm_head.__class__ = TwoStreamLinear
    return model
