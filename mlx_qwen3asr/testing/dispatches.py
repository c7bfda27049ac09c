"""Counting what a GPU dispatches: the primitives of a graph, exported on any backend.

    graph outputs -> mx.export_to_dot -> primitive nodes (name, input arrays) -> Graph
    Graph.dispatches: the primitives a GPU runs as kernels; Graph.views: those it runs as none

On a GPU every primitive but a view is one kernel launched by the host, and decoding one token costs
about the number of kernels, not their work (0.6B: ~850 per token, ~20x its weights' bandwidth floor);
so the count is the measure of a GPU path (STYLE.md item 18). Views: reshapes, transposes, slices,
splits, broadcasts; a reshape of a transposed array is a copy and counts as a dispatch.

The CPU backend builds MLX's fused operations (mx.fast.rms_norm, layer_norm, rope,
scaled_dot_product_attention) from fallback graphs of many primitives, where a GPU runs one kernel.
Inside `fused_ops_as_one()` each is stood in for by one node (an `mx.depends` on its inputs, shaped
like its output), so a graph built on this CPU counts what a GPU dispatches. One exception follows
MLX's GPU backends: attention of fewer than 4 query rows with an array mask (a boolean mask over the
whole cache) has no fused kernel on CUDA (its vector kernel takes no array mask), so it is built from
its fallback and counted so. The stand-ins compute nothing: graphs are counted, never evaluated.
"""

import json
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import mlx.core as mx
import numpy as np

VIEWS = frozenset(
    {"Reshape", "Flatten", "Unflatten", "Transpose", "Slice", "Split", "Broadcast", "ExpandDims", "Squeeze"}
)
RESHAPES = frozenset({"Reshape", "Flatten", "Unflatten"})
FUSED_OPS = ("rms_norm", "layer_norm", "rope", "scaled_dot_product_attention")


@dataclass(frozen=True)
class AttentionCall:
    query_shape: tuple
    key_shape: tuple
    mask: str  # "none", "causal" or "array"

    @property
    def fused(self) -> bool:
        """Whether MLX's GPU backends run it as one kernel (see the module docstring)."""
        return not (self.query_shape[2] < 4 and self.mask == "array")


@dataclass(frozen=True)
class Graph:
    names: Counter  # every primitive, by name
    copies: int  # reshapes of transposed arrays (copies on a GPU)

    @property
    def primitives(self) -> int:
        return sum(self.names.values())

    @property
    def views(self) -> int:
        return sum(n for name, n in self.names.items() if name in VIEWS) - self.copies

    @property
    def dispatches(self) -> int:
        return self.primitives - self.views


def graph(outputs) -> Graph:
    """The graph that produces `outputs` (arrays, or lists of them); arrays already evaluated are its
    inputs."""
    with tempfile.TemporaryDirectory() as folder:
        dot = Path(folder) / "graph.dot"
        mx.export_to_dot(str(dot), outputs)
        text = dot.read_text()
    # one block per application of a primitive (a compiled function's applications share one id):
    # its label line, then its input edges, then its output edges
    applications: list[tuple[str, list[str]]] = []
    producer: dict[str, str] = {}  # array -> the name of the primitive that made it
    for line in text.splitlines():
        if label := re.match(r'\{ \d+ \[label ="(\w+)"', line):
            applications.append((label[1], []))
        elif edge := re.match(r'^"(\w+)" -> \d+$', line):
            applications[-1][1].append(edge[1])
        elif edge := re.match(r'^\d+ -> "(\w+)"$', line):
            producer[edge[1]] = applications[-1][0]
    copies = sum(
        1 for name, inputs in applications if name in RESHAPES and any(producer.get(a) == "Transpose" for a in inputs)
    )
    return Graph(Counter(name for name, _ in applications), copies)


def _one_node(out_like: mx.array, *inputs) -> mx.array:
    """One primitive shaped like `out_like`, depending on every array in `inputs`."""
    arrays = [a for a in inputs if isinstance(a, mx.array)]
    return mx.depends([out_like], arrays or [out_like])[0]


@contextmanager
def fused_ops_as_one() -> Iterator[list[AttentionCall]]:
    """Within the block, MLX's fused operations build one node each (see the module docstring); yields
    the list the attention calls are recorded in."""
    calls: list[AttentionCall] = []
    saved = {name: getattr(mx.fast, name) for name in FUSED_OPS}

    def rms_norm(x, weight, eps):
        return _one_node(x, x, weight)

    def layer_norm(x, weight, bias, eps):
        return _one_node(x, x, weight, bias)

    def rope(x, dims, *, traditional, base, scale, offset, freqs=None):
        return _one_node(x, x, offset, freqs)

    def scaled_dot_product_attention(q, k, v, *, scale, mask=None, sinks=None):
        kind = "none" if mask is None else ("causal" if isinstance(mask, str) else "array")
        calls.append(AttentionCall(tuple(q.shape), tuple(k.shape), kind))
        if not calls[-1].fused:
            return saved["scaled_dot_product_attention"](q, k, v, scale=scale, mask=mask)
        out = q if q.shape[-1] == v.shape[-1] else mx.zeros((*q.shape[:-1], v.shape[-1]), q.dtype)
        return _one_node(out, q, k, v, mask if kind == "array" else None)

    stand_ins = {
        "rms_norm": rms_norm,
        "layer_norm": layer_norm,
        "rope": rope,
        "scaled_dot_product_attention": scaled_dot_product_attention,
    }
    for name, function in stand_ins.items():
        setattr(mx.fast, name, function)
    try:
        yield calls
    finally:
        for name, function in saved.items():
            setattr(mx.fast, name, function)


def sized_model(decoder_layers: int, encoder_layers: int, gpu: bool):
    """A random Qwen3-ASR with the 0.6B sizes (a small vocabulary: the head is no layer) in float16, the
    GPU path swapped in (`gpu`, as load does on a GPU) or the model as written."""
    from ..families.qwen3_asr.config import ModelArgs
    from ..families.qwen3_asr.model import Qwen3ASR
    from ..layers import gpu as decoder_gpu
    from .random_checkpoint import FIXTURES_DIR

    config = json.loads((FIXTURES_DIR / "config.json").read_text())
    config["thinker_config"]["text_config"].update(num_hidden_layers=decoder_layers, vocab_size=1024)
    config["thinker_config"]["audio_config"]["encoder_layers"] = encoder_layers
    model = Qwen3ASR(ModelArgs.from_dict(config))
    model.set_dtype(mx.float16)
    if gpu:
        decoder_gpu.install(model)
        for install in model.gpu_installs:
            install(model)
    mx.eval(model.parameters())
    return model


def held_cache(model, position: int = 300, capacity: int = 512) -> list:
    """A one-row KV cache per decoder layer holding `position` tokens in storage of `capacity` slots."""
    from ..layers.cache import KVCache

    text, cache = model.args.text, []
    for _ in model.model.layers:
        layer = KVCache()
        layer.keys = mx.zeros((1, text.num_key_value_heads, capacity, text.head_dim), mx.float16)
        layer.values = mx.zeros_like(layer.keys)
        layer.offset = position
        mx.eval(layer.keys, layer.values)
        cache.append(layer)
    return cache


def decode_step_graph(model) -> tuple[Graph, list[AttentionCall]]:
    """One token's decode step at position 300 of a 512-slot one-row cache, through model.decode_step()."""
    cache = held_cache(model)
    with fused_ops_as_one() as calls:
        logits = model.decode_step()(mx.zeros((1, 1, model.args.text.hidden_size), mx.float16), cache)
        return graph(logits), calls


def encode_graph(model, seconds: int) -> tuple[Graph, list[AttentionCall]]:
    """An encode of `seconds` of log-mel. The mel is a StopGradient of an evaluated array: that node is in
    the graph only if nothing inside the encode evaluated (waited for) what depends on it."""
    mel = mx.array(np.zeros((seconds * 100, 128), np.float16))
    with fused_ops_as_one() as calls:
        return graph(model.encode(mx.stop_gradient(mel))), calls


def per_layer(count: Callable, gpu: bool) -> tuple[Graph, Graph, list[AttentionCall]]:
    """count(model) of a model with one and with two layers (decoder and encoder alike): (one, two, the
    two-layer model's attention calls); two minus one is one layer's share."""
    one, _ = count(sized_model(1, 1, gpu))
    two, calls = count(sized_model(2, 2, gpu))
    return one, two, calls
