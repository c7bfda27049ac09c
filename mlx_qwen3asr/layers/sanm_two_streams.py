"""The SAN-M layers' CPU path: the FSMN memory as strided taps (TapsFSMN), and the encoder on the CPU's two
streams (runtime/two_streams.py says why and how): `SANM_CPU_SWAPS`, the CPU swaps of the families built on
layers/sanm.py (SenseVoiceSmall, Paraformer, Fun-ASR-Nano's audio tower),
installed by layers/two_stream_layers.install. Each runs its plain wiring when there is no side stream or
when its products cannot be cut (quantized).

    encoder call inside two_streams() (evaluated there)
    -> per layer: heads 0-1 | heads 2-3 (q/k/v rows, attention, and the FSMN memory of their value channels)
       -> o_proj by halves of its output rows -> + the two memories, joined
    -> the feed-forward: fc1 + ReLU by halves of the hidden features, fc2 by halves of its output rows

Why here: MLX's CPU backend runs the softmax's elementwise passes on one thread; over a 60 s clip each layer's
scores are 4 x 1000 x 1000 floats, and the split runs half of them on each core (105 -> 33 ms for that
attention alone on the 2-core EPYC; the whole 60 s encoder 1.1-1.2x faster quiet). Inputs under SPLIT_FRAMES
run whole: there the joins cost more than the split saves. Results agree with one stream to float32 round-off (a half-width product
may take another BLAS kernel): the same ids on every golden.
"""

import mlx.core as mx

from ..runtime.two_streams import evaluated_on_two_streams, halves, linear_halves, linear_part, on, side_stream, splits
from .attention import attention
from .sanm import FSMN, MLP, Attention, AudioEncoder, memory, relu

# Inputs of at least this many frames (~15 s) split; shorter ones run whole, where the split's joins cost
# more than it saves (2-core EPYC, quiet: 3 s 0.45 s split against 0.40 s whole; 60 s 9.1-9.5 against 10.3-11.2 s)
SPLIT_FRAMES = 256


class TapsFSMN(FSMN):
    """The FSMN memory as strided taps (sanm.memory): MLX's grouped conv is slow on the CPU."""

    def __call__(self, v: mx.array) -> mx.array:
        return memory(v, self.conv.weight, self.kernel)


class TwoStreamSanmAttention(Attention):
    """Each half of the heads, and the FSMN memory of its value channels, on its own stream."""

    def _heads(self, x: mx.array, part: int, parts: int) -> tuple[mx.array, mx.array]:
        B, T, _ = x.shape
        q, k, v = (linear_part(linear, x, part, parts) for linear in (self.q_proj, self.k_proj, self.v_proj))
        split = lambda t: t.reshape(B, T, self.heads // parts, -1).transpose(0, 2, 1, 3)  # noqa: E731
        out = attention(split(q), split(k), split(v), self.scale).transpose(0, 2, 1, 3).reshape(B, T, -1)
        if "fsmn" not in self:
            return out, None
        size = v.shape[-1]
        return out, memory(v, self.fsmn.conv.weight[part * size : (part + 1) * size], self.fsmn.kernel)

    def __call__(self, x: mx.array) -> mx.array:
        side = side_stream()
        if side is None or self.heads % 2 or not splits(self.q_proj, self.k_proj, self.v_proj, self.o_proj):
            return super().__call__(x)
        first, second = self._heads(x, 0, 2), on(side, self._heads, x, 1, 2)
        out = linear_halves(self.o_proj, mx.concatenate([first[0], second[0]], axis=-1), side)
        return out if first[1] is None else out + mx.concatenate([first[1], second[1]], axis=-1)


class TwoStreamSanmMLP(MLP):
    """fc2(ReLU(fc1(x))), the hidden features in halves, one on each stream."""

    def __call__(self, x: mx.array) -> mx.array:
        side = side_stream()
        if side is None or not splits(self.fc1, self.fc2):
            return super().__call__(x)
        hidden = halves(lambda part, parts: relu(linear_part(self.fc1, x, part, parts)), side)
        return linear_halves(self.fc2, hidden, side)


class TwoStreamSanmEncoder(AudioEncoder):
    """An input of SPLIT_FRAMES or more: the encoder's call inside two_streams(), its output evaluated there
    (by the input's shape alone); a shorter one whole, on one stream with every BLAS thread."""

    def __call__(self, x: mx.array) -> mx.array:
        return _split_call(self, x) if x.shape[1] >= SPLIT_FRAMES else super().__call__(x)


_split_call = evaluated_on_two_streams(AudioEncoder.__call__)


# plain class -> its two-stream version (swapped only when a module's class is exactly the key)
SANM_CPU_SWAPS = {
    FSMN: TapsFSMN,
    Attention: TwoStreamSanmAttention,
    MLP: TwoStreamSanmMLP,
    AudioEncoder: TwoStreamSanmEncoder,
}
