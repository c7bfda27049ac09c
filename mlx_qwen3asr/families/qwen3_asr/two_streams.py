"""Qwen3-ASR's audio encoder on the CPU's two streams (runtime/two_streams.py says why and how): the
family's CPU swaps (`CPU_SWAPS`), installed by layers/two_stream_layers.install with the decoder's. Each
runs its plain wiring when there is no side stream or when its products cannot be cut (quantized)."""

import mlx.core as mx
import mlx.nn as nn

from ...layers.activations import gelu
from ...runtime.two_streams import evaluated_on_two_streams, halves, linear_halves, linear_part, side_stream, splits
from .encoder import AudioAttention, AudioEncoder, AudioEncoderLayer, windowed_attention


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


# plain class -> its two-stream version (swapped only when a module's class is exactly the key)
CPU_SWAPS = {
    AudioAttention: TwoStreamAudioAttention,
    AudioEncoderLayer: TwoStreamAudioEncoderLayer,
    AudioEncoder: TwoStreamAudioEncoder,
}
