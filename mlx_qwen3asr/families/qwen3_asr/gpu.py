"""The audio encoder's GPU path, swapped in at load time on a GPU (runtime/device.py).

    mel [frames, 128] -> conv stem over every chunk at once (exact erf GELU, one compiled kernel)
      -> tokens of every clip, each clip's windows (104 tokens; the last one shorter) padded to 104
         by one gather                                                  [windows, 104, d_model]
      -> per layer: layer_norm -> x @ [q|k|v] (one product) -> ONE attention call over all windows,
         a boolean mask [windows, 1, 1, 104] hiding the padding -> out_proj -> + residual
         -> layer_norm -> fc1 -> GELU -> fc2 -> + residual                 11 dispatches per layer
      -> output head -> the valid tokens, by one gather                 [n_tokens, output_dim]

Why: on a GPU the host's dispatches are the cost (the model as written: two attention calls per layer plus a
concatenation, windows grouped by length; 19 dispatches per layer). Nothing inside an encode waits for
the GPU: the CPU path evaluates its conv stem between 8-chunk batches to bound CPU memory (8 host
waits at 60 s); here the stem runs whole up to STEM_BATCH_CHUNKS chunks and longer audio is scheduled
batch after batch with mx.async_eval (bounded memory, no wait). Padded rows cost < one window of
per-token work and are dropped at the end; windows still never see each other, so each clip's output
is what the CPU path computes (to the GPU's round-off).
"""

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ...layers.gpu import merged
from .encoder import AudioAttention, AudioEncoder, AudioEncoderLayer, WindowGroups, clip_windows

STEM_BATCH_CHUNKS = 128  # 2 minutes of audio (~15 MB of float16 activations per chunk at the 0.6B size)


@mx.compile
def gelu(x: mx.array) -> mx.array:
    """Exact (erf) GELU, as in the official encoder, as one kernel."""
    return nn.gelu(x)


class GpuAudioAttention(nn.Module):
    """Attention within padded windows [windows, tokens, d]: q, k, v from one product, one fused call."""

    def __init__(self, plain: AudioAttention, qkv_proj: nn.Module):
        super().__init__()
        self.n_heads = plain.n_heads
        self.qkv_proj, self.out_proj = qkv_proj, plain.out_proj

    def __call__(self, x: mx.array, mask) -> mx.array:
        windows, tokens, dim = x.shape
        qkv = self.qkv_proj(x).reshape(windows, tokens, 3 * self.n_heads, -1).swapaxes(1, 2)
        q, k, v = mx.split(qkv, 3, axis=1)
        out = mx.fast.scaled_dot_product_attention(q, k, v, scale=(dim // self.n_heads) ** -0.5, mask=mask)
        return self.out_proj(out.swapaxes(1, 2).reshape(windows, tokens, dim))


class GpuAudioEncoderLayer(AudioEncoderLayer):
    """The layer on padded windows [windows, tokens, d], its mask hiding the padding (None: no padding)."""

    def __call__(self, x: mx.array, mask) -> mx.array:
        x = x + self.self_attn(self.self_attn_layer_norm(x), mask)
        return x + self.fc2(gelu(self.fc1(self.final_layer_norm(x))))


def padded_windows(lengths: list[int], window: int) -> tuple[np.ndarray, np.ndarray]:
    """Windows of `lengths` tokens (in token order) padded to `window` each: the token each padded slot
    takes (0 for padding) and whether it is a real one, both [windows * window]."""
    slots = np.arange(window)
    starts = np.cumsum([0] + lengths[:-1])
    valid = np.concatenate([slots < n for n in lengths])
    source = np.concatenate([start + np.minimum(slots, n - 1) for start, n in zip(starts, lengths)])
    return np.where(valid, source, 0), valid


class GpuAudioEncoder(AudioEncoder):
    """The encoder's entry points on padded windows, and the conv stem without host waits."""

    activation = staticmethod(gelu)  # the exact GELU as one compiled kernel

    def _stem_batches(self, chunks: mx.array) -> mx.array:
        n_chunks, step = chunks.shape[0], STEM_BATCH_CHUNKS
        if n_chunks <= step:
            return self._stem(chunks)
        parts = []
        for start in range(0, n_chunks, step):
            parts.append(self._stem(chunks[start : start + step]))
            mx.async_eval(parts[-1])  # scheduled in order (bounded memory); the host does not wait
        return mx.concatenate(parts)

    def encode_windows(self, x: mx.array, lengths: list[int]) -> mx.array:
        """Tokens [n, d_model] forming consecutive windows of `lengths` tokens -> [n, output_dim]."""
        window = self.args.attention_window
        if all(n == window for n in lengths):
            x, mask, valid = x.reshape(len(lengths), window, -1), None, None
        else:
            source, valid = padded_windows(lengths, window)
            x = x[mx.array(source)].reshape(len(lengths), window, -1)
            mask = mx.array(valid.reshape(len(lengths), 1, 1, window))
        for layer in self.layers:
            x = layer(x, mask)
        x = self.head(x.reshape(-1, x.shape[-1]))
        return x if valid is None else x[mx.array(np.flatnonzero(valid))]

    def encode_tokens(self, x: mx.array, windows: WindowGroups = None) -> mx.array:
        groups = windows or clip_windows(x.shape[0], self.args.attention_window)
        return self.encode_windows(x, [length for count, length in groups for _ in range(count)])

    def encode_many(self, mels: list[mx.array]) -> list[mx.array]:
        tokens = self.embed_chunks_of([mel.astype(self.conv_out.weight.dtype) for mel in mels])
        window = self.args.attention_window
        lengths = [x.shape[0] for x in tokens]
        windows = [n for length in lengths for count, n in clip_windows(length, window) for _ in range(count)]
        x = self.encode_windows(tokens[0] if len(tokens) == 1 else mx.concatenate(tokens), windows)
        return [x] if len(tokens) == 1 else mx.split(x, np.cumsum(lengths)[:-1].tolist())


def install(model: nn.Module) -> None:
    """Swap the GPU path into `model`'s audio encoder (in place) when it is Qwen3-ASR's."""
    tower = getattr(model, "audio_tower", None)
    if type(tower) is not AudioEncoder:
        return
    merges = [
        merged([layer.self_attn.q_proj, layer.self_attn.k_proj, layer.self_attn.v_proj]) for layer in tower.layers
    ]
    if any(qkv is None or type(layer.self_attn) is not AudioAttention for qkv, layer in zip(merges, tower.layers)):
        return  # a layer that cannot take the path: the whole encoder keeps the plain one (no mixing)
    for layer, qkv in zip(tower.layers, merges):
        layer.self_attn = GpuAudioAttention(layer.self_attn, qkv)
        layer.__class__ = GpuAudioEncoderLayer
    tower.__class__ = GpuAudioEncoder
