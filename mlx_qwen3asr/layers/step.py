"""One decode step of one row as a single compiled graph: embedding -> logits, on a list of KVCache.

    embedding [1, 1, hidden], position p = the cache's offset
      -> the decoder's own forward pass (TextModel, speech_lm.logits) on SlotCaches:
         each layer's new key/value written into its cache's storage at slot p,
         attention over the WHOLE storage [kv_heads, capacity, head_dim] with slots after p masked
      -> logits [1, 1, vocab]; each KVCache takes the written storage and the offset p + 1

Why: besides its matrix-vector products a step is ~1000 small operations (norms, RoPE, cache
writes, attention, residuals), each dispatched on its own. Traced once per cache capacity and run
through `mx.compile`, the step keeps the same graph from token to token and its elementwise chains
fuse. The shapes must not change between steps for that: the cache's preallocated storage (grown
256 slots at a time by KVCache) is attended to whole, with a mask instead of a slice, so a step
reads the same shapes until the storage grows. The masked slots carry weight exp(-1e30) = 0: the
result is the unmasked attention's to float32 round-off. A compiled function replays its graph, not
Python side effects, so the step hands the layers a SlotCache (storage as arrays in and out) and the
KVCache takes the result through its own `store`. The decode loop (decode/generate.py) calls the step for
one row; prompts and batches run the plain forward pass.
"""

import threading
from collections.abc import Callable

import mlx.core as mx

from ..runtime.two_streams import side_stream
from .cache import KVCache


class SlotCache:
    """One layer's cache inside the compiled step: storage arrays, the new token written at `position`."""

    def __init__(self, keys: mx.array, values: mx.array, position: mx.array):
        self.keys, self.values, self.offset = keys, values, position  # offset: [1], as a batch's is [B]

    def update_and_fetch(self, keys: mx.array, values: mx.array) -> tuple[mx.array, mx.array]:
        self.keys = mx.slice_update(self.keys, keys, self.offset, axes=(2,))
        self.values = mx.slice_update(self.values, values, self.offset, axes=(2,))
        return self.keys, self.values

    def mask(self, length: int) -> mx.array:
        """Bool [1, 1, 1, capacity]: the slots up to the new token's."""
        return (mx.arange(self.keys.shape[2]) <= self.offset)[None, None, None]


class DecodeStep:
    """`step(embedding, cache)` -> logits [1, 1, vocab]; the cache (already prefilled) advances one slot."""

    def __init__(self, model):
        self.model = model
        self._per_thread = threading.local()

    def _compiled(self) -> Callable:
        """This thread's compiled step, for its stream set-up: an MLX stream belongs to the thread that
        made it, and a compiled graph to the streams it was traced on (the app decodes on a worker)."""
        steps = self._per_thread.__dict__.setdefault("steps", {})
        key = side_stream() is not None  # inside two_streams() the layers split their work (two_streams.py)
        if key not in steps:
            steps[key] = mx.compile(self._step)
        return steps[key]

    def _step(self, x: mx.array, position: mx.array, keys: list, values: list):
        caches = [SlotCache(k, v, position) for k, v in zip(keys, values)]
        logits = self.model(x, caches)
        return logits, [c.keys for c in caches], [c.values for c in caches]

    def __call__(self, embedding: mx.array, cache: list[KVCache]) -> mx.array:
        position = cache[0].offset
        for layer in cache:
            layer.reserve(position + 1)
        logits, keys, values = self._compiled()(
            embedding, mx.array([position]), [c.keys for c in cache], [c.values for c in cache]
        )
        for layer, layer_keys, layer_values in zip(cache, keys, values):
            layer.store(layer_keys, layer_values, position + 1)
        return logits
