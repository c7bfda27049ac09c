"""The decoder's two-stream versions (runtime/two_streams.py says why and how) and `install`, which swaps
them, and the family's own (its `cpu_swaps`), into a loaded model on the CPU. Each one runs its plain wiring when there is no side stream (outside
two_streams(), off the CPU, on one core) or when its products cannot be cut (quantized)."""

import mlx.core as mx
import mlx.nn as nn

from ..runtime.two_streams import halves, linear_halves, linear_part, on, row_part, side_stream, splits
from .activations import swiglu
from .attention import attention
from .decoder import MLP, Attention
from .rope import rotate_heads


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


# plain class -> its two-stream version; a module is swapped only when its class is exactly the key
# (a quantized one keeps its own). The linears inside split their products where these classes say.
SWAPS = {
    nn.Embedding: TwoStreamEmbedding,
    Attention: TwoStreamAttention,
    MLP: TwoStreamMLP,
}


def install(model: nn.Module) -> nn.Module:
    """Swap the two-stream versions into `model` (in place; same weights, same names) when MLX runs on
    the CPU. Quantized modules keep their class (their products run whole)."""
    if mx.default_device() != mx.cpu:
        return model
    swaps = {**SWAPS, **model.cpu_swaps}
    for _, module in model.named_modules():
        swap = swaps.get(type(module))
        if swap is not None:
            module.__class__ = swap
    if type(getattr(model, "lm_head", None)) is nn.Linear:  # an untied LM head, the aligner's classifier
        model.lm_head.__class__ = TwoStreamLinear
    return model
