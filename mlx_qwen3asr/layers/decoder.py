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

    def __call__(
        self,
        x: mx.array,
        mask=None,
        cache: Optional[KVCache | BatchKVCache] = None,
        rotary: tuple = (),
        last_only: bool = False,
    ) -> mx.array:
        """[B, L, hidden] -> [B, L, hidden], or [B, 1, hidden] for the last position alone with
        `last_only` (the keys and values of every position still go to the cache)."""
        B, L, _ = x.shape
        q = rotate_heads(self.q_norm(self.q_proj(x).reshape(B, L, self.n_heads, -1)), *rotary)
        k = rotate_heads(self.k_norm(self.k_proj(x).reshape(B, L, self.n_kv_heads, -1)), *rotary)
        v = self.v_proj(x).reshape(B, L, self.n_kv_heads, -1).transpose(0, 2, 1, 3)
        if cache is not None:
            k, v = cache.update_and_fetch(k, v)
        if last_only:  # the last query sees every key: no mask (a batch's padding mask: its last row)
            q, L = q[:, :, -1:], 1
            mask = mask[..., -1:, :] if isinstance(mask, mx.array) else None
        out = attention(q, k, v, self.scale, mask)
        return self.o_proj(out.transpose(0, 2, 1, 3).reshape(B, L, -1))


class MLP(nn.Module):
    def __init__(self, dim: int, hidden_dim: int):
        super().__init__()
        self.gate_proj = nn.Linear(dim, hidden_dim, bias=False)
        self.up_proj = nn.Linear(dim, hidden_dim, bias=False)
        self.down_proj = nn.Linear(hidden_dim, dim, bias=False)

    def __call__(self, x: mx.array) -> mx.array:
        return self.down_proj(swiglu(self.gate_proj(x), self.up_proj(x)))


class DecoderLayer(nn.Module):
    def __init__(self, args: TextArgs):
        super().__init__()
        self.self_attn = Attention(args)
        self.mlp = MLP(args.hidden_size, args.intermediate_size)
        self.input_layernorm = nn.RMSNorm(args.hidden_size, eps=args.rms_norm_eps)
        self.post_attention_layernorm = nn.RMSNorm(args.hidden_size, eps=args.rms_norm_eps)

    def __call__(
        self, x: mx.array, mask=None, cache: Optional[KVCache] = None, rotary: tuple = (), last_only: bool = False
    ) -> mx.array:
        attended = self.self_attn(self.input_layernorm(x), mask, cache, rotary, last_only)
        x = (x[:, -1:] if last_only else x) + attended
        return x + self.mlp(self.post_attention_layernorm(x))


class TextModel(nn.Module):
    def __init__(self, args: TextArgs):
        super().__init__()
        self.embed_tokens = nn.Embedding(args.vocab_size, args.hidden_size)
        self.layers = [DecoderLayer(args) for _ in range(args.num_hidden_layers)]
        self.norm = nn.RMSNorm(args.hidden_size, eps=args.rms_norm_eps)
        self.head_dim, self.rope_theta = args.head_dim, args.rope_theta

    def __call__(
        self, embeddings: mx.array, cache: Optional[list[KVCache]] = None, last_only: bool = False
    ) -> mx.array:
        """[B, L, hidden] -> final hidden states [B, L, hidden], or [B, 1, hidden] of the last position
        with `last_only` (the last layer then computes one row past its keys and values)."""
        length = embeddings.shape[1]
        mask = cache[0].mask(length) if cache else ("causal" if length > 1 else None)
        # the cache's offset: an int, or an array [B] of per-row offsets (a batch, the compiled step)
        positions = token_positions(cache[0].offset if cache else 0, length)
        rotary = rotary_table(positions, self.head_dim, self.rope_theta, embeddings.dtype)
        cache = cache or [None] * len(self.layers)
        x = embeddings
        for i, (layer, layer_cache) in enumerate(zip(self.layers, cache)):
            x = layer(x, mask, layer_cache, rotary, last_only and i == len(self.layers) - 1)
        return self.norm(x)
