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

import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import mlx.core as mx

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
