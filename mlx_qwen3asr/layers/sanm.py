"""The SAN-M audio encoder of FunASR's models (Fun-ASR-Nano's audio tower, SenseVoice's encoder):
LFR features -> encoder states. The sizes below are Fun-ASR-Nano's release.

    features [T, 560] -> x * sqrt(512) + sinusoid PE (positions 1..T, 560 channels)
    -> 70 pre-LayerNorm SAN-M layers (layer 0: 560 -> 512, no residual around its attention):
         h = LN_in(x); v = v_proj(h)                                        [T, 512], unsplit
         x = x + o_proj(MHA(q, k, v)) + v + depthwise_conv(v, kernel 11, zero pad 5 | 5)   (FSMN memory)
         x = x + fc2(ReLU(fc1(LN_post(x))))
         layers 49 and 69 end with their own final_layernorm
    -> [T, 512]

Attention is bidirectional over the whole clip (4 heads of 128, no window, no relative position):
the official code encodes a clip in one pass and accepts at most 2048 LFR frames (~123 s, its
position table); longer audio is split at quiet points before it gets here (decode/transcribe.py).
Memory per layer is one [heads, T, T] score matrix: 64 MiB in float32 at 2048 frames.
"""

import math
from dataclasses import dataclass
from functools import lru_cache

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from .attention import attention
from .config import BaseArgs


@dataclass
class EncoderArgs(BaseArgs):
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    num_mel_bins: int = 80
    num_stacked_frames: int = 7  # LFR: frames stacked per feature row (560 = 7 x 80 inputs)
    num_timestamp_prediction_layers: int = 20
    fsmn_kernel_size: int = 11
    max_position_embeddings: int = 2049  # sinusoid table rows; positions count from 1: <= 2048 frames
    layer_norm_eps: float = 1e-5
    hidden_act: str = "relu"

    @property
    def input_size(self) -> int:
        return self.num_mel_bins * self.num_stacked_frames

    @property
    def max_frames(self) -> int:
        """The most LFR frames one pass takes (2048, ~122.9 s): the official table has one row more."""
        return self.max_position_embeddings - 1

    @property
    def normed_layers(self) -> tuple[int, int]:
        """Layers that end with their own LayerNorm: the last transcription layer (49) and the last (69)."""
        transcription = self.num_hidden_layers - self.num_timestamp_prediction_layers
        return transcription - 1, self.num_hidden_layers - 1


@lru_cache(maxsize=4)
def positional_table(length: int, channels: int) -> np.ndarray:
    """[sin | cos] sinusoids of positions 0..length-1 as the official float32 table: float32 timescales and
    products (as torch computes them), sin/cos correctly rounded (float64, then float32)."""
    increment = np.float32(np.log(10000.0) / (channels // 2 - 1))
    inv = np.exp(np.float64(-increment * np.arange(channels // 2, dtype=np.float32))).astype(np.float32)
    scaled = (np.arange(length, dtype=np.float32)[:, None] * inv[None]).astype(np.float64)
    return np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1).astype(np.float32)


def relu(x: mx.array) -> mx.array:
    return mx.maximum(x, 0)


class LayerNorm(nn.LayerNorm):
    """LayerNorm with its statistics taken around each row's first value, then around the mean. Layer 0
    normalises the scaled features: a silent frame is ~560 values near -15.9 * sqrt(512) = -360 with a
    std under 1, where a float32 sum of the raw values (and mx.fast.layer_norm) is ~1e-3 off torch's
    pairwise one; shifted values sum with a small error. Costs nothing measurable beside the matmuls."""

    def __call__(self, x: mx.array) -> mx.array:
        shifted = x - x[..., :1]
        centered = shifted - shifted.mean(axis=-1, keepdims=True)
        normed = centered * mx.rsqrt(mx.square(centered).mean(axis=-1, keepdims=True) + self.eps)
        return normed * self.weight + self.bias


class FSMN(nn.Module):
    """v + depthwise conv of v along time (kernel K, zero padding (K-1)//2 before and the rest after): one
    grouped conv (3 dispatches on a GPU). The CPU path swaps in strided taps (sanm_two_streams.TapsFSMN)."""

    def __init__(self, dim: int, kernel: int):
        super().__init__()
        self.conv = nn.Conv1d(dim, dim, kernel, bias=False, groups=dim)  # weight [dim, K, 1]
        self.kernel = kernel

    def __call__(self, v: mx.array) -> mx.array:
        left = (self.kernel - 1) // 2
        padded = mx.pad(v, [(0, 0), (left, self.kernel - 1 - left), (0, 0)])
        return v + mx.conv1d(padded, self.conv.weight, groups=v.shape[-1])


def memory(v: mx.array, weight: mx.array, kernel: int) -> mx.array:
    """FSMN on the CPU: v [B, T, D] + its depthwise conv by `weight` [D, K, 1] (the rows of v's channels) as K taps
    of a strided view times their weights, summed: the same sums as the grouped conv to float32 round-off
    (~4e-6), 2-4x faster on the CPU, where MLX's grouped conv loops per channel (28 -> 6.6 ms per layer for a
    60 s clip's 1000 frames). On a GPU it would be 5 dispatches against the conv's 3: the CPU path only."""
    left = (kernel - 1) // 2
    padded = mx.pad(v, [(0, 0), (left, kernel - 1 - left), (0, 0)])
    B, T, D = v.shape
    steps = padded.shape[1] * D
    taps = mx.as_strided(padded, (B, T, kernel, D), (steps, D, D, 1))  # [B, T, K, D]: taps[t, k] = v[t + k - left]
    return v + (taps * weight[:, :, 0].T).sum(axis=2)


class Attention(nn.Module):
    """Bidirectional multi-head attention; with `fsmn`, the SAN-M memory of the unsplit values added."""

    def __init__(self, in_dim: int, dim: int, heads: int, fsmn_kernel: int = 0):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.q_proj = nn.Linear(in_dim, dim)
        self.k_proj = nn.Linear(in_dim, dim)
        self.v_proj = nn.Linear(in_dim, dim)
        self.o_proj = nn.Linear(dim, dim)
        if fsmn_kernel:
            self.fsmn = FSMN(dim, fsmn_kernel)

    def __call__(self, x: mx.array) -> mx.array:
        B, T, _ = x.shape
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        split = lambda t: t.reshape(B, T, self.heads, -1).transpose(0, 2, 1, 3)  # noqa: E731
        out = attention(split(q), split(k), split(v), self.scale)  # the CPU's faster softmax (layers/attention.py)
        out = self.o_proj(out.transpose(0, 2, 1, 3).reshape(B, T, -1))
        return out + self.fsmn(v) if "fsmn" in self else out


class MLP(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def __call__(self, x: mx.array) -> mx.array:
        return self.fc2(relu(self.fc1(x)))


class EncoderLayer(nn.Module):
    """Pre-LayerNorm block, shared by the encoder (with FSMN) and the adaptor (without)."""

    def __init__(self, in_dim: int, dim: int, heads: int, hidden: int, eps: float, fsmn_kernel: int, final_norm: bool):
        super().__init__()
        self.self_attn = Attention(in_dim, dim, heads, fsmn_kernel)
        self.mlp = MLP(dim, hidden)
        self.input_layernorm = LayerNorm(in_dim, eps=eps)
        self.post_attention_layernorm = LayerNorm(dim, eps=eps)
        if final_norm:
            self.final_layernorm = LayerNorm(dim, eps=eps)
        self.residual = in_dim == dim  # layer 0 (560 -> 512) has no residual around its attention

    def __call__(self, x: mx.array) -> mx.array:
        attended = self.self_attn(self.input_layernorm(x))
        x = x + attended if self.residual else attended
        x = x + self.mlp(self.post_attention_layernorm(x))
        return self.final_layernorm(x) if "final_layernorm" in self else x


class AudioEncoder(nn.Module):
    def __init__(self, args: EncoderArgs):
        super().__init__()
        self.args = args
        normed = args.normed_layers
        self.layers = [
            EncoderLayer(
                args.input_size if i == 0 else args.hidden_size,
                args.hidden_size,
                args.num_attention_heads,
                args.intermediate_size,
                args.layer_norm_eps,
                args.fsmn_kernel_size,
                i in normed,
            )
            for i in range(args.num_hidden_layers)
        ]

    def __call__(self, x: mx.array) -> mx.array:
        """Features [B, T, 560] (clips of one length, no padding) -> [B, T, hidden]."""
        frames = x.shape[1]
        if frames > self.args.max_frames:
            raise ValueError(
                f"{frames} LFR frames (~{frames * 0.06:.0f} s of audio) are more than one encoder pass takes "
                f"({self.args.max_frames}, ~{self.args.max_frames * 0.06:.0f} s, as the official code): split "
                "the audio (transcribe does, at quiet points)"
            )
        table = mx.array(positional_table(frames + 1, self.args.input_size)[1:])  # positions count from 1
        x = x * math.sqrt(self.args.hidden_size) + table.astype(x.dtype)
        for layer in self.layers:
            x = layer(x)
        return x
