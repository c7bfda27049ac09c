"""The SAN-M decoder of FunASR's Paraformer: all token positions in one pass, no cache, no causal mask.
Module names are the release's (decoder.decoders.N.*), so its tensors load with one rename (fsmn_block).

    queries [N, 512] (the CIF's acoustic embeddings, one row per token), memory [T, 512] (the encoder output)
    -> num_blocks layers, each:
         h = feed_forward(norm1(x)):  w_2(LN(ReLU(w_1(.))))   (w_2 has no bias; LN over 2048 units)
         x = x + self_attn(norm2(h)): h' + depthwise_conv(h', kernel 11, zero pad 5 | 5)   (FSMN only: no attention)
         x = x + src_attn(norm3(x), memory): multi-head cross-attention, q from x, k|v from one linear_k_v
    -> decoders3.0: x = feed_forward(norm1(x))      (no residual: funasr's layer without attention returns it)
    -> after_norm -> output_layer -> logits [N, vocab]
Every position sees every other one through the FSMN and all of the memory: the decoder is bidirectional.
"""

from dataclasses import dataclass

import mlx.core as mx
import mlx.nn as nn

from .attention import attention
from .config import BaseArgs
from .sanm import FSMN, LayerNorm, relu


@dataclass
class DecoderArgs(BaseArgs):
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    vocab_size: int
    fsmn_kernel_size: int = 11
    layer_norm_eps: float = 1e-12


class CrossAttention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.linear_q = nn.Linear(dim, dim)
        self.linear_k_v = nn.Linear(dim, 2 * dim)
        self.linear_out = nn.Linear(dim, dim)

    def __call__(self, x: mx.array, memory: mx.array) -> mx.array:
        B, N, D = x.shape
        split = lambda t: t.reshape(B, t.shape[1], self.heads, -1).transpose(0, 2, 1, 3)  # noqa: E731
        k, v = mx.split(self.linear_k_v(memory), 2, axis=-1)
        out = attention(split(self.linear_q(x)), split(k), split(v), self.scale)
        return self.linear_out(out.transpose(0, 2, 1, 3).reshape(B, N, D))


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden: int, eps: float):
        super().__init__()
        self.w_1 = nn.Linear(dim, hidden)
        self.norm = LayerNorm(hidden, eps=eps)
        self.w_2 = nn.Linear(hidden, dim, bias=False)

    def __call__(self, x: mx.array) -> mx.array:
        return self.w_2(self.norm(relu(self.w_1(x))))


class DecoderLayer(nn.Module):
    def __init__(self, args: DecoderArgs):
        super().__init__()
        dim, eps = args.hidden_size, args.layer_norm_eps
        self.feed_forward = FeedForward(dim, args.intermediate_size, eps)
        self.self_attn = FSMN(dim, args.fsmn_kernel_size)
        self.src_attn = CrossAttention(dim, args.num_attention_heads)
        self.norm1 = LayerNorm(dim, eps=eps)
        self.norm2 = LayerNorm(dim, eps=eps)
        self.norm3 = LayerNorm(dim, eps=eps)

    def __call__(self, x: mx.array, memory: mx.array) -> mx.array:
        x = x + self.self_attn(self.norm2(self.feed_forward(self.norm1(x))))
        return x + self.src_attn(self.norm3(x), memory)


class FeedForwardLayer(nn.Module):
    """funasr's DecoderLayerSANM without attention: its output is the feed-forward's, with no residual."""

    def __init__(self, args: DecoderArgs):
        super().__init__()
        self.feed_forward = FeedForward(args.hidden_size, args.intermediate_size, args.layer_norm_eps)
        self.norm1 = LayerNorm(args.hidden_size, eps=args.layer_norm_eps)

    def __call__(self, x: mx.array) -> mx.array:
        return self.feed_forward(self.norm1(x))


class SANMDecoder(nn.Module):
    def __init__(self, args: DecoderArgs):
        super().__init__()
        self.args = args
        self.decoders = [DecoderLayer(args) for _ in range(args.num_hidden_layers)]
        self.decoders3 = [FeedForwardLayer(args)]
        self.after_norm = LayerNorm(args.hidden_size, eps=args.layer_norm_eps)
        self.output_layer = nn.Linear(args.hidden_size, args.vocab_size)

    def __call__(self, queries: mx.array, memory: mx.array) -> mx.array:
        """Queries [B, N, D] and memory [B, T, D] (no padding) -> logits [B, N, vocab]."""
        x = queries
        for layer in self.decoders:
            x = layer(x, memory)
        return self.output_layer(self.after_norm(self.decoders3[0](x)))
