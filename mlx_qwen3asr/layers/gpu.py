"""The decoder's GPU path, swapped in at load time on a GPU (runtime/device.py): fewer dispatches per token.

    one token, one decoder layer (dispatches: kernels the host launches; views are free)
      rms_norm -> x @ [q|k|v] (one product) -> heads first (a reshape) -> split q, k, v
      -> q_norm, k_norm (mx.fast.rms_norm) -> RoPE on q and on k (mx.fast.rope at the cache's offset)
      -> the cache's storage takes k and v at slot p, attention over its slots 0..p (a slice: no mask,
         so MLX's fused decode kernel runs) -> o_proj -> + residual
      -> rms_norm -> x @ [gate|up] (one product) -> silu(gate) * up (one compiled kernel) -> down_proj
      -> + residual                               16 dispatches (the model as written, on a GPU: 28)

Why: on a GPU a decode step is bound by how many kernels the host launches (~850 per token before,
~20x the 0.6B weights' bandwidth floor), not by their work, so every kernel saved is time saved. The
merged products are made here once, at load (`install`), from the checkpoint's separate ones, which
stay the names saved and loaded (the converter never installs a path). The step is not compiled: a
compiled step must keep its shapes from token to token, which needs a mask over the whole cache, and
that mask is what rules MLX's fused decode attention out. Uncompiled, as mlx-lm decodes.

RoPE uses the same frequencies as the CPU path (rope.py: 1 / theta^(2i/d) rounded as torch does), given
to mx.fast.rope as `freqs`. The activation is silu's own formula (MLX's sigmoid), one fused kernel: the
CPU path's integer-trick polynomials (activations.py) are for x86's lack of vector exp.
"""

import copy
from typing import Optional

import mlx.core as mx
import mlx.nn as nn

from .cache import KVCache
from .decoder import MLP, Attention
from .rope import rope_frequencies


@mx.compile
def silu_gate(gate: mx.array, up: mx.array) -> mx.array:
    """silu(gate) * up, the Qwen3 MLP's gate, as one kernel."""
    return gate * mx.sigmoid(gate) * up


def merged(linears: list[nn.Module]) -> Optional[nn.Module]:
    """One linear computing the outputs of `linears` side by side (x @ [W1|W2|...]), or None when they
    cannot be joined (different kinds, or quantized differently)."""
    first = linears[0]
    if any(type(linear) is not type(first) for linear in linears):
        return None
    if isinstance(first, nn.QuantizedLinear):
        settings = {(lin.group_size, lin.bits, lin.mode) for lin in linears}
        if len(settings) > 1:
            return None
    elif not isinstance(first, nn.Linear):
        return None
    joined = copy.copy(first)  # its settings (a quantized one's bits, group size, mode), arrays replaced
    for name in ("weight", "scales", "biases", "bias"):
        if name in first:
            joined[name] = mx.concatenate([linear[name] for linear in linears])
    return joined


class GpuAttention(nn.Module):
    """The decoder's attention with q, k and v from one product, MLX's fused norm, RoPE and attention."""

    def __init__(self, plain: Attention, qkv_proj: nn.Module, theta: float):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = plain.n_heads, plain.n_kv_heads, plain.head_dim
        self.scale = plain.scale
        self.qkv_proj, self.o_proj = qkv_proj, plain.o_proj
        self.q_norm, self.k_norm = plain.q_norm, plain.k_norm
        self._freqs = rope_frequencies(self.head_dim, theta)

    def _rope(self, x: mx.array, offset) -> mx.array:
        return mx.fast.rope(x, self.head_dim, traditional=False, base=None, scale=1.0, offset=offset, freqs=self._freqs)

    def __call__(self, x: mx.array, mask=None, cache=None, rotary: tuple = (), last_only: bool = False) -> mx.array:
        """As decoder.Attention (its `rotary` table unused: RoPE runs at the cache's offset)."""
        B, L, _ = x.shape
        qkv = self.qkv_proj(x)
        # heads first: [B, heads, L, head_dim] (for one token a reshape alone)
        qkv = qkv.reshape(B, -1, 1, self.head_dim) if L == 1 else qkv.reshape(B, L, -1, self.head_dim).swapaxes(1, 2)
        q, k, v = mx.split(qkv, [self.n_heads, self.n_heads + self.n_kv_heads], axis=1)
        offset = 0 if cache is None else cache.offset  # an int, or a batch's per-row offsets [B]
        q, k = self._rope(self.q_norm(q), offset), self._rope(self.k_norm(k), offset)
        if cache is not None:
            k, v = cache.update_and_fetch(k, v)
        if last_only:
            q, L = q[:, :, -1:], 1
            mask = mask[..., -1:, :] if isinstance(mask, mx.array) else None
        out = mx.fast.scaled_dot_product_attention(q, k, v, scale=self.scale, mask=mask)
        out = out.reshape(B, 1, -1) if L == 1 else out.swapaxes(1, 2).reshape(B, L, -1)
        return self.o_proj(out)


class GpuMLP(nn.Module):
    """The SwiGLU MLP with gate and up from one product and one compiled kernel for the gate."""

    def __init__(self, plain: MLP, gate_up_proj: nn.Module):
        super().__init__()
        self.gate_up_proj, self.down_proj = gate_up_proj, plain.down_proj

    def __call__(self, x: mx.array) -> mx.array:
        gate, up = mx.split(self.gate_up_proj(x), 2, axis=-1)
        return self.down_proj(silu_gate(gate, up))


class GpuDecodeStep:
    """`step(embedding, cache)` -> logits [1, 1, vocab]: the model's forward pass on a one-row KVCache,
    whose update slices its storage to the tokens held (see the module docstring: not compiled)."""

    def __init__(self, model):
        self.model = model

    def __call__(self, embedding: mx.array, cache: list[KVCache]) -> mx.array:
        return self.model(embedding, cache)


def install(model: nn.Module) -> None:
    """Swap the GPU path into `model`'s decoder (in place): every decoder layer's attention and MLP
    whose products can be merged; the decode step of a recogniser."""
    text = getattr(model, "model", None)
    for layer in getattr(text, "layers", ()):
        attention, mlp = layer.self_attn, layer.mlp
        if type(attention) is Attention and (qkv := merged([attention.q_proj, attention.k_proj, attention.v_proj])):
            layer.self_attn = GpuAttention(attention, qkv, text.rope_theta)
        if type(mlp) is MLP and (gate_up := merged([mlp.gate_proj, mlp.up_proj])):
            layer.mlp = GpuMLP(mlp, gate_up)
    if hasattr(model, "decode_step"):
        model._decode_step = GpuDecodeStep(model)  # what speech_lm.decode_step hands the decode loop
