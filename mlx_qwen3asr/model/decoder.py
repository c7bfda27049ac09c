"""Qwen3 text decoder: token embeddings (audio already spliced in) -> next-token logits.

    embeddings [B, L, hidden] -> N x (RMSNorm -> GQA attention with per-head q/k RMSNorm and RoPE
    -> residual -> RMSNorm -> SwiGLU MLP -> residual) -> RMSNorm -> tied LM head -> logits [B, L, vocab]

Qwen3-ASR's MRoPE (sections [24, 20, 20], interleaved) gets the same position id on all three axes
for audio-only prompts, which makes it exactly plain rotate-half RoPE (theta 1e6) over head_dim
(rope.py: its cos/sin table is computed once per forward pass and handed to every layer).
"""

from typing import Optional

import mlx.core as mx
import mlx.nn as nn

from .activations import swiglu
from .attention import attention
from .cache import BatchKVCache, KVCache
from .config import TextArgs
from .rope import rotary_table, rotate_heads, token_positions
from .streams import halves, linear_halves, linear_part, on, side_stream, splits


class Attention(nn.Module):
    def __init__(self, args: TextArgs):
        super().__init__()
        self.n_heads, self.n_kv_heads = args.num_attention_heads, args.num_key_value_heads
        self.head_dim = args.head_dim
        self.scale = args.head_dim**-0.5
        bias = args.attention_bias
        self.q_proj = nn.Linear(args.hidden_size, self.n_heads * self.head_dim, bias=bias)
        self.k_proj = nn.Linear(args.hidden_size, self.n_kv_heads * self.head_dim, bias=bias)
        self.v_proj = nn.Linear(args.hidden_size, self.n_kv_heads * self.head_dim, bias=bias)
        self.o_proj = nn.Linear(self.n_heads * self.head_dim, args.hidden_size, bias=bias)
        self.q_norm = nn.RMSNorm(self.head_dim, eps=args.rms_norm_eps)
        self.k_norm = nn.RMSNorm(self.head_dim, eps=args.rms_norm_eps)

    def queries(self, x: mx.array, rotary: tuple, part: int = 0, parts: int = 1) -> mx.array:
        """q of heads part/parts (all heads when parts == 1), normed and rotated: [B, heads / parts, L, D]."""
        B, L, _ = x.shape
        q = linear_part(self.q_proj, x, part, parts).reshape(B, L, self.n_heads // parts, -1)
        return rotate_heads(self.q_norm(q), *rotary)

    def keys_values(self, x: mx.array, rotary: tuple, part: int = 0, parts: int = 1) -> tuple[mx.array, mx.array]:
        """k (normed and rotated) and v of kv heads part/parts: [B, kv_heads / parts, L, D] each."""
        B, L, _ = x.shape
        k = linear_part(self.k_proj, x, part, parts).reshape(B, L, self.n_kv_heads // parts, -1)
        v = linear_part(self.v_proj, x, part, parts).reshape(B, L, self.n_kv_heads // parts, -1)
        return rotate_heads(self.k_norm(k), *rotary), v.transpose(0, 2, 1, 3)

    def project(self, x: mx.array, rotary: tuple, side: Optional[mx.Stream]) -> tuple[list, mx.array, mx.array]:
        """Queries per stream ([B, heads / streams, L, head_dim] each) and every head's new keys and
        values. With a side stream, a decode step (one token) computes q here beside k and v on the
        side stream; a prompt computes each half of the heads on its own stream (measured: fewer,
        larger operations are faster for one token under load, halves for a prompt)."""
        if side is None or not splits(self.q_proj, self.k_proj, self.v_proj):
            return [self.queries(x, rotary)], *self.keys_values(x, rotary)
        if x.shape[1] == 1:
            k, v = on(side, self.keys_values, x, rotary)
            return [self.queries(x, rotary)], k, v
        halves_kv = [self.keys_values(x, rotary, 0, 2), on(side, self.keys_values, x, rotary, 1, 2)]
        queries = [self.queries(x, rotary, 0, 2), on(side, self.queries, x, rotary, 1, 2)]
        k, v = (mx.concatenate([part[i] for part in halves_kv], axis=1) for i in (0, 1))  # the cache takes all
        return queries, k, v

    def attend(self, queries: list, k: mx.array, v: mx.array, mask, side: Optional[mx.Stream]) -> mx.array:
        """Each stream's queries over its heads' keys and values (k/v [B, kv_heads, S, head_dim]),
        joined: [B, heads, L, head_dim]."""
        kv_heads = k.shape[1] // len(queries)

        def one_part(part: int, parts: int) -> mx.array:
            heads = slice(part * kv_heads, (part + 1) * kv_heads)
            keys, values = (k, v) if parts == 1 else (k[:, heads], v[:, heads])
            return attention(queries[part], keys, values, self.scale, mask)

        return halves(one_part, side if len(queries) > 1 else None, axis=1)

    def __call__(
        self,
        x: mx.array,
        mask,
        cache: Optional[KVCache | BatchKVCache],
        rotary: tuple,
        side: Optional[mx.Stream] = None,
        last_only: bool = False,
    ) -> mx.array:
        """[B, L, hidden] -> [B, L, hidden], or [B, 1, hidden] for the last position alone with
        `last_only` (the keys and values of every position still go to the cache)."""
        queries, k, v = self.project(x, rotary, side)
        if cache is not None:
            k, v = cache.update_and_fetch(k, v)
        if last_only:  # the last query sees every key: no mask (a batch's padding mask: its last row)
            queries = [q[:, :, -1:] for q in queries]
            mask = mask[..., -1:, :] if isinstance(mask, mx.array) else None
        out = self.attend(queries, k, v, mask, side)
        B, L = out.shape[0], out.shape[2]
        return linear_halves(self.o_proj, out.transpose(0, 2, 1, 3).reshape(B, L, -1), side)


class MLP(nn.Module):
    def __init__(self, dim: int, hidden_dim: int):
        super().__init__()
        self.gate_proj = nn.Linear(dim, hidden_dim, bias=False)
        self.up_proj = nn.Linear(dim, hidden_dim, bias=False)
        self.down_proj = nn.Linear(hidden_dim, dim, bias=False)

    def __call__(self, x: mx.array, side: Optional[mx.Stream] = None) -> mx.array:
        """With a side stream: a decode step (one token) computes gate there beside up here; a prompt
        each half of the hidden features on its own stream. down_proj by halves of its output rows."""
        side = side if splits(self.gate_proj, self.up_proj) else None
        if side is not None and x.shape[1] == 1:
            gate = on(side, self.gate_proj, x)
            return linear_halves(self.down_proj, swiglu(gate, self.up_proj(x)), side)

        def gated(part: int, parts: int) -> mx.array:
            return swiglu(linear_part(self.gate_proj, x, part, parts), linear_part(self.up_proj, x, part, parts))

        return linear_halves(self.down_proj, halves(gated, side), side)


class DecoderLayer(nn.Module):
    def __init__(self, args: TextArgs):
        super().__init__()
        self.self_attn = Attention(args)
        self.mlp = MLP(args.hidden_size, args.intermediate_size)
        self.input_layernorm = nn.RMSNorm(args.hidden_size, eps=args.rms_norm_eps)
        self.post_attention_layernorm = nn.RMSNorm(args.hidden_size, eps=args.rms_norm_eps)

    def __call__(
        self,
        x: mx.array,
        mask,
        cache: Optional[KVCache],
        rotary: tuple,
        side: Optional[mx.Stream] = None,
        last_only: bool = False,
    ) -> mx.array:
        attended = self.self_attn(self.input_layernorm(x), mask, cache, rotary, side, last_only)
        x = (x[:, -1:] if last_only else x) + attended
        return x + self.mlp(self.post_attention_layernorm(x), side)


class TextModel(nn.Module):
    def __init__(self, args: TextArgs):
        super().__init__()
        self.embed_tokens = nn.Embedding(args.vocab_size, args.hidden_size)
        self.layers = [DecoderLayer(args) for _ in range(args.num_hidden_layers)]
        self.norm = nn.RMSNorm(args.hidden_size, eps=args.rms_norm_eps)
        self.head_dim, self.rope_theta = args.head_dim, args.rope_theta

    def rotary(self, positions: mx.array, dtype: mx.Dtype) -> tuple[mx.array, mx.array]:
        """The RoPE table of positions [B, L], for every layer (rope.py)."""
        return rotary_table(positions, self.head_dim, self.rope_theta, dtype)

    def __call__(
        self, embeddings: mx.array, cache: Optional[list[KVCache]] = None, last_only: bool = False
    ) -> mx.array:
        """[B, L, hidden] -> final hidden states [B, L, hidden], or [B, 1, hidden] of the last position
        with `last_only` (the last layer then computes one row past its keys and values)."""
        length = embeddings.shape[1]
        mask = cache[0].mask(length) if cache else ("causal" if length > 1 else None)
        # the cache's offset: an int, or an array [B] of per-row offsets for a BatchKVCache
        rotary = self.rotary(token_positions(cache[0].offset if cache else 0, length), embeddings.dtype)
        cache = cache or [None] * len(self.layers)
        x, side = embeddings, side_stream()  # inside streams.two_streams(): each layer in two halves
        for i, (layer, layer_cache) in enumerate(zip(self.layers, cache)):
            x = layer(x, mask, layer_cache, rotary, side, last_only and i == len(self.layers) - 1)
        return self.norm(x)
