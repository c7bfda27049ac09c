"""Audio encoder: log-mel frames -> audio embeddings in the decoder's hidden size.

mel [frames, 128]
  -> split into chunks of 100 frames; the last, partial chunk is zero-padded to 100
     (only when there is more than one chunk: the official batch pads to its longest chunk)
  -> conv stem per chunk, 8 chunks at a time:  3 x (Conv2d 3x3 stride 2 + GELU)
                                                                  [chunks, 16 mel, 13 time, C]
  -> conv_out(channels x mel)                                     [chunks, 13, d_model]
  -> + sinusoidal positions 0..12: positions restart in every chunk
  -> keep the valid tokens of each chunk                           [n_tokens, d_model]
  -> transformer layers, attention only inside windows of 104 tokens (8 chunks = 800 frames):
     windows never see each other, so they run as one batch [windows, 104, d_model]
  -> ln_post -> proj1 -> GELU -> proj2                             [n_tokens, output_dim]
"""

import math
from typing import Optional

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ...layers.activations import gelu
from ...layers.attention import attention
from .config import AudioArgs, conv_stem_length

# Chunks (1 s of audio each) through the conv stem at a time. Its activations take ~30 MB per chunk
# at the 0.6B size in float32 (conv2's im2col alone 14 MB): unbatched, a 20-minute file would need
# tens of GB. Batches keep the peak flat and the cost linear in length; 8 chunks (6,400 rows for
# conv2's matrix product) keep the BLAS at full speed and the arrays small enough for the CPU
# allocator's cache to hand the same buffers back batch after batch (allocator.py).
STEM_BATCH_CHUNKS = 8


def n_audio_tokens(n_frames: int, chunk_frames: int = 100, tokens_per_chunk: int = 13) -> int:
    """The official output-length formula: 13 tokens per full chunk, plus the partial chunk's."""
    return conv_stem_length(n_frames % chunk_frames) + (n_frames // chunk_frames) * tokens_per_chunk


def sinusoids(length: int, channels: int, max_timescale: float = 10000.0) -> mx.array:
    """Whisper-style positions: [sin | cos] over a geometric range of timescales."""
    increment = np.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = np.exp(-increment * np.arange(channels // 2, dtype=np.float32)).astype(np.float32)
    scaled = np.arange(length, dtype=np.float32)[:, None] * inv_timescales[None, :]
    return mx.array(np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1))


# Windows of one length, side by side in the token order: (how many, tokens in each).
WindowGroups = list[tuple[int, int]]


def clip_windows(n: int, window: int) -> WindowGroups:
    """One clip's windows: its full windows as one group, then the shorter last one."""
    return [(count, length) for count, length in ((n // window, window), (1, n % window)) if count and length]


def window_plan(lengths: list[int], window: int) -> tuple[Optional[np.ndarray], WindowGroups]:
    """Token order for several clips encoded together, and its window groups.

    Clips' tokens come concatenated; each clip's windows start at its own first token. The order
    puts every clip's full windows first (one group), then the last windows grouped by length, so
    equal windows of all clips run as one batch. None for the order when it is the given one.
    """
    full, tails, start = [], {}, 0
    for n in lengths:
        n_full = (n // window) * window
        full.append(np.arange(start, start + n_full))
        if n > n_full:
            tails.setdefault(n - n_full, []).append(np.arange(start + n_full, start + n))
        start += n
    groups = [(sum(map(len, full)) // window, window)] if any(map(len, full)) else []
    tail_lengths = sorted(tails, reverse=True)
    groups += [(len(tails[length]), length) for length in tail_lengths]
    order = np.concatenate(full + [index for length in tail_lengths for index in tails[length]])
    return (None if np.array_equal(order, np.arange(start)) else order), groups


def windowed_attention(q: mx.array, k: mx.array, v: mx.array, n_heads: int, windows) -> mx.array:
    """Bidirectional attention within windows. q, k, v: [n, dim]. `windows`: tokens per window
    (consecutive windows of one clip), or WindowGroups covering the n tokens in order."""
    n, dim = q.shape
    groups = clip_windows(n, windows) if isinstance(windows, int) else windows
    parts, start = [], 0
    for count, length in groups:  # each group as one batch [count, heads, length, head_dim]
        end = start + count * length
        qw, kw, vw = (x[start:end].reshape(count, length, n_heads, -1).transpose(0, 2, 1, 3) for x in (q, k, v))
        out = attention(qw, kw, vw, (dim // n_heads) ** -0.5)
        parts.append(out.transpose(0, 2, 1, 3).reshape(end - start, dim))
        start = end
    return mx.concatenate(parts) if len(parts) > 1 else parts[0]


class AudioAttention(nn.Module):
    def __init__(self, dim: int, n_heads: int):
        super().__init__()
        self.n_heads = n_heads
        self.q_proj = nn.Linear(dim, dim)
        self.k_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.out_proj = nn.Linear(dim, dim)

    def __call__(self, x: mx.array, windows: WindowGroups) -> mx.array:
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        return self.out_proj(windowed_attention(q, k, v, self.n_heads, windows))


class AudioEncoderLayer(nn.Module):
    def __init__(self, args: AudioArgs):
        super().__init__()
        self.self_attn = AudioAttention(args.d_model, args.encoder_attention_heads)
        self.self_attn_layer_norm = nn.LayerNorm(args.d_model)
        self.fc1 = nn.Linear(args.d_model, args.encoder_ffn_dim)
        self.fc2 = nn.Linear(args.encoder_ffn_dim, args.d_model)
        self.final_layer_norm = nn.LayerNorm(args.d_model)

    def __call__(self, x: mx.array, windows: WindowGroups) -> mx.array:
        x = x + self.self_attn(self.self_attn_layer_norm(x), windows)
        return x + self.fc2(gelu(self.fc1(self.final_layer_norm(x))))


class AudioEncoder(nn.Module):
    activation = staticmethod(gelu)  # exact GELU (the GPU path's encoder has its one-kernel form)

    def __init__(self, args: AudioArgs):
        super().__init__()
        self.args = args
        channels = args.downsample_hidden_size
        self.conv2d1 = nn.Conv2d(1, channels, 3, stride=2, padding=1)
        self.conv2d2 = nn.Conv2d(channels, channels, 3, stride=2, padding=1)
        self.conv2d3 = nn.Conv2d(channels, channels, 3, stride=2, padding=1)
        mel_after_stem = conv_stem_length(args.num_mel_bins)
        self.conv_out = nn.Linear(channels * mel_after_stem, args.d_model, bias=False)
        self.layers = [AudioEncoderLayer(args) for _ in range(args.encoder_layers)]
        self.ln_post = nn.LayerNorm(args.d_model)
        self.proj1 = nn.Linear(args.d_model, args.d_model)
        self.proj2 = nn.Linear(args.d_model, args.output_dim)
        self._positions = sinusoids(args.tokens_per_chunk, args.d_model)

    def _chunks(self, mel: mx.array) -> mx.array:
        """[frames, mels] -> [chunks, mels, chunk_frames, 1] (NHWC with H = mel bins, W = time)."""
        frames, n_mels = mel.shape
        size = self.args.chunk_frames
        n_chunks = math.ceil(frames / size)
        if n_chunks > 1 and frames % size:
            mel = mx.pad(mel, [(0, n_chunks * size - frames), (0, 0)])
        length = mel.shape[0] // n_chunks
        return mel.reshape(n_chunks, length, n_mels).transpose(0, 2, 1)[..., None]

    def _stem(self, chunks: mx.array) -> mx.array:
        """[chunks, mels, chunk_frames, 1] -> [chunks, tokens_per_chunk, d_model], positions added."""
        x = self.activation(self.conv2d1(chunks))
        x = self.activation(self.conv2d2(x))
        x = self.activation(self.conv2d3(x))
        n_chunks, n_freq, n_time, channels = x.shape
        x = x.transpose(0, 2, 3, 1).reshape(n_chunks, n_time, channels * n_freq)
        return self.conv_out(x) + self._positions[:n_time].astype(x.dtype)

    def _stem_batches(self, chunks: mx.array) -> mx.array:
        """The conv stem over many chunks, STEM_BATCH_CHUNKS at a time: [chunks, tokens_per_chunk, d_model]."""
        n_chunks, step = chunks.shape[0], STEM_BATCH_CHUNKS
        parts = []
        for start in range(0, n_chunks, step):
            parts.append(self._stem(chunks[start : start + step]))
            if n_chunks > step:  # left lazy, MLX would run every batch's convolutions side by side
                mx.eval(parts[-1])
        return mx.concatenate(parts) if len(parts) > 1 else parts[0]

    def embed_chunks_of(self, mels: list[mx.array]) -> list[mx.array]:
        """Conv stem + chunk positions for several clips: [frames_i, mels] -> [n_tokens_i, d_model].

        Each clip is chunked by its own rule (its partial last chunk padded only if it has others);
        chunks of equal width from all clips then go through the stem together.
        """
        chunked = [self._chunks(mel) for mel in mels]
        by_width: dict[int, list[int]] = {}
        for i, chunks in enumerate(chunked):
            by_width.setdefault(chunks.shape[2], []).append(i)
        stems: list[mx.array] = [None] * len(mels)
        for clips in by_width.values():
            together = chunked[clips[0]] if len(clips) == 1 else mx.concatenate([chunked[i] for i in clips])
            out, start = self._stem_batches(together), 0
            for i in clips:
                stems[i], start = out[start : start + chunked[i].shape[0]], start + chunked[i].shape[0]
        size, per_chunk = self.args.chunk_frames, self.args.tokens_per_chunk
        return [
            x.reshape(-1, x.shape[-1])[: n_audio_tokens(mel.shape[0], size, per_chunk)] for x, mel in zip(stems, mels)
        ]

    def embed_chunks(self, mel: mx.array) -> mx.array:
        """Conv stem + chunk positions: [frames, mels] -> [n_tokens, d_model]."""
        return self.embed_chunks_of([mel])[0]

    def __call__(self, mel: mx.array) -> mx.array:
        """[frames, n_mels] -> [n_audio_tokens, output_dim]."""
        return self.encode_many([mel])[0]

    def encode_many(self, mels: list[mx.array]) -> list[mx.array]:
        """Several clips in one pass: [frames_i, n_mels] -> [n_audio_tokens_i, output_dim], each exactly
        as if encoded alone (windows never cross clips; per-token layers do not care about order)."""
        tokens = self.embed_chunks_of([mel.astype(self.conv_out.weight.dtype) for mel in mels])
        lengths = [x.shape[0] for x in tokens]
        order, groups = window_plan(lengths, self.args.attention_window)
        x = tokens[0] if len(tokens) == 1 else mx.concatenate(tokens)
        if order is not None:
            x = self.encode_tokens(x[mx.array(order)], groups)[mx.array(np.argsort(order))]
        else:
            x = self.encode_tokens(x, groups)
        if len(tokens) == 1:
            return [x]
        bounds = np.cumsum(lengths)[:-1].tolist()
        return mx.split(x, bounds)

    def encode_tokens(self, x: mx.array, windows: Optional[WindowGroups] = None) -> mx.array:
        """Windowed transformer layers + output head: [n_tokens, d_model] -> [n_tokens, output_dim].
        `windows`: default, consecutive windows of one clip."""
        windows = windows or clip_windows(x.shape[0], self.args.attention_window)
        for layer in self.layers:
            x = layer(x, windows)
        return self.head(x)

    def head(self, x: mx.array) -> mx.array:
        """The output head: [n_tokens, d_model] -> [n_tokens, output_dim]."""
        return self.proj2(self.activation(self.proj1(self.ln_post(x))))
