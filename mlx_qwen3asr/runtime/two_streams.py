"""A CPU tactic, swapped in at load time: each layer's work in two halves on two CPU streams.

    load() on the CPU -> two_stream_layers.install(model): the layers' classes become two-stream ones
    (same modules, same weights, same checkpoint names; as mlx-lm's shard() swaps in sharded linears)
    with two_streams():            (the decode loop, the encoder's entry points, the aligner)
        each swapped layer asks side_stream() and, given one, splits its work:
        heads 0..H/2 on this thread's default stream | heads H/2..H on the side stream
        (q/k/v rows, norms, RoPE, attention, per head), then each product's output rows in halves
        (o_proj, the MLP's gate/up + SwiGLU, down_proj, the LM head), joined by a concatenation
    outside the block (or off the CPU, or on one core) each layer runs its plain wiring

Why: MLX's CPU backend runs each elementwise operation on one thread, and a BLAS product over all
cores synchronises its threads inside every call. Two streams (each its own thread) with one BLAS
thread each run the elementwise work on both cores, and their products never wait on each other
inside a call. Measured on the 2-core machine (docs/performance.md): the encoder 1.06-1.13x and the
prefill 1.02-1.05x faster when the machine is quiet; under background load ~1.8x faster, where a
two-thread product waits on whichever of its threads the scheduler took the core from. A decode step
(one token) keeps q beside k/v and gate beside up: fewer, larger operations were faster there.

Exactness: each output is the same dot product either way, but a BLAS may pick another kernel for a
half-width product, so split and plain results agree to float32 round-off, not always to the bit
(tests: same tokens, logits within a stated tolerance). Neither depends on history: the same input in
the same mode gives the same bits every time (blas_router.c routes by the product's shape alone).

Streams belong to the thread that made them (the app decodes on a worker thread), so each thread
has its own side stream. The BLAS thread count is process-wide: two_streams() is for a block that is
the process's only BLAS work meanwhile.
"""

import functools
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Optional

import mlx.core as mx
import mlx.nn as nn

from . import blas

_per_thread = threading.local()


def _can_split() -> bool:
    """Two streams pay on the CPU backend with two or more cores (and a BLAS not held to one thread)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return mx.default_device() == mx.cpu and cores >= 2 and blas.thread_count() != 1


def _own_side_stream() -> mx.Stream:
    """This thread's second CPU stream (made on first use)."""
    if not hasattr(_per_thread, "side"):
        _per_thread.side = mx.new_stream(mx.cpu)
    return _per_thread.side


def side_stream() -> Optional[mx.Stream]:
    """The side stream inside two_streams() on this thread, else None (work on one stream)."""
    return getattr(_per_thread, "block", None) or None


@contextmanager
def two_streams(enabled: bool = True) -> Iterator[None]:
    """Within the block, layers on this thread split their work over two CPU streams, each stream with
    half the BLAS threads; all of it is finished when the block ends. Off the CPU or on one core it
    changes nothing. A block inside another changes nothing either: `two_streams(False)` around a
    call keeps all of it on one stream."""
    if getattr(_per_thread, "block", None) is not None:
        yield
        return
    side = _own_side_stream() if enabled and _can_split() else False
    _per_thread.block = side
    try:
        if not side:
            yield
            return
        with blas.threads(blas.thread_count() // 2):
            try:
                yield
            finally:  # the thread count changes back only once no product of the block still runs
                mx.synchronize(side)
                mx.synchronize()
    finally:
        _per_thread.block = None


def evaluated_on_two_streams(function: Callable) -> Callable:
    """Decorator: `function` runs inside two_streams() and its result (arrays, or lists of them) is
    evaluated there, before the block gives the BLAS threads back."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        with two_streams():
            out = function(*args, **kwargs)
            mx.eval(out)
        return out

    return run


def on(stream: Optional[mx.Stream], work: Callable, *args):
    """work(*args) with its operations on `stream` (None: the default stream)."""
    if stream is None:
        return work(*args)
    with mx.stream(stream):
        return work(*args)


def halves(work: Callable[[int, int], mx.array], side: Optional[mx.Stream], axis: int = -1) -> mx.array:
    """work(part, parts) for part 0 on the default stream and part 1 on `side`, joined along `axis`;
    work(0, 1) alone without a side stream."""
    if side is None:
        return work(0, 1)
    second = on(side, work, 1, 2)
    return mx.concatenate([work(0, 2), second], axis=axis)


def batch_halves(model: Callable[..., mx.array], *batch: mx.array) -> mx.array:
    """model(*batch) with the batch's first half (the larger) on this stream and the rest on the side stream,
    joined; whole on one stream without a side stream or with one item. For models whose items are
    independent (the diarizer's windows)."""
    side, count = side_stream(), batch[0].shape[0]
    if side is None or count < 2:
        return model(*batch)
    cut = (count + 1) // 2
    return halves(lambda part, _: model(*(a[:cut] if part == 0 else a[cut:] for a in batch)), side, axis=0)


def splits(*linears: nn.Module) -> bool:
    """Whether these projections can be cut by output rows (nn.Linear, not quantized)."""
    return all(isinstance(linear, nn.Linear) for linear in linears)


def row_part(weight: mx.array, part: int, parts: int) -> mx.array:
    """Rows [part/parts, (part+1)/parts) of a weight (a view, no copy)."""
    size = weight.shape[0] // parts
    return weight if parts == 1 else weight[part * size : (part + 1) * size]


def linear_part(linear: nn.Module, x: mx.array, part: int, parts: int) -> mx.array:
    """Output features [part/parts, (part+1)/parts) of linear(x) (all of them when parts == 1)."""
    if parts == 1:
        return linear(x)
    out = x @ row_part(linear.weight, part, parts).T
    return out + row_part(linear.bias, part, parts) if "bias" in linear else out


def linear_halves(linear: nn.Module, x: mx.array, side: Optional[mx.Stream]) -> mx.array:
    """linear(x), its output rows in halves across the streams (whole when it cannot be cut)."""
    if side is None or not splits(linear):
        return linear(x)
    return halves(lambda part, parts: linear_part(linear, x, part, parts), side)
