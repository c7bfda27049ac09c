"""The prompt's head computed once per context: its keys and values copied into each decode's cache.

    context, language, hotwords -> the prompt's head ids [P] (model.prompt_parts: every id before the audio pads;
               Qwen3-ASR: the system turn with the context, the user turn's opening, <|audio_start|>)
            -> embeddings [1, P, hidden] -> decoder (generate.prefill)
            -> keys/values per layer [1, kv_heads, P, head_dim], kept in an LRU bounded in bytes and
               keyed by the head's ids (contexts, or languages, with the same head share it)
    PrefixCache.cache(context, language, prompt_length) -> a KVCache per layer holding a copy of them
    (KVCache.copy); the decode then prefills only the rest of its prompt (audio + tail) on top of it.

Every chunk of a file, every batch row, every live utterance and every server request with the same
context starts with the same P tokens: with a 2,000-token context and 30 s chunks (~390 audio
tokens) the head is ~5/6 of each prefill. Keys and values depend only on the tokens before them
(causal attention), so the copy holds what the full prompt's prefill would compute there; the
products have other shapes (P rows instead of P + n), so a BLAS rounds differently in the last
bits. Measured on this project's CPU BLAS: keys/values within 2e-6 of |k| ~3 (tiny model) and 1e-5
of |k| ~5 (0.6B size), the next-token logits within 1e-4 of ~160 and 1e-3 of ~720; the tokens are
the goldens' with the cache on and off (tests/decode/test_prefix_cache.py).

Memory: layers x 2 x kv_heads x head_dim x dtype bytes per token (0.6B and 1.7B in float32:
224 KiB, so a 2,000-token context holds ~440 MiB), plus the copy each row decodes on (which it
would otherwise fill by its own prefill).
"""

from collections import OrderedDict
from collections.abc import Sequence
from typing import Optional

import mlx.core as mx

from ..families.recogniser import Recogniser
from ..layers.cache import KVCache
from .generate import prefill

DEFAULT_MAX_BYTES = 1 << 30  # 1 GiB: two 2,000-token contexts of the 0.6B model in float32


class PrefixCache:
    """Prompt heads of one model, keyed by their ids, least recently used dropped past `max_bytes`.
    Not thread-safe: use it from the thread that runs the model."""

    def __init__(self, model: Recogniser, max_bytes: int = DEFAULT_MAX_BYTES, *, enabled: bool = True):
        """enabled=False (or PrefixCache.off(model)): no heads at all, every decode prefills its whole
        prompt on a fresh cache (the same tokens; for equality tests and benchmarks)."""
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise ValueError(f"max_bytes must be a number of bytes, 0 or more, got {max_bytes!r}")
        self.model, self.max_bytes, self.enabled = model, max_bytes, enabled
        self._heads: OrderedDict[tuple[int, ...], tuple[str, list[KVCache]]] = OrderedDict()  # ids -> (context, kv)
        self.hits = self.misses = self.nbytes = 0  # nbytes: held by the stored heads

    def cache(
        self, context: str = "", language: Optional[str] = None, prompt_length: int = 0, hotwords: Sequence[str] = ()
    ) -> list[KVCache]:
        """A cache of its own (one KVCache per layer) holding the keys and values of the prompt's head
        for this context, language and hotwords, its storage allocated for a prompt of `prompt_length`
        tokens. Disabled: a fresh, empty cache (the decode prefills its whole prompt)."""
        if not self.enabled:
            return self.model.make_cache()
        head = self.head(context, language, hotwords)
        return [layer.copy(max(0, prompt_length - layer.offset)) for layer in head]

    @classmethod
    def off(cls, model: Recogniser) -> "PrefixCache":
        """No prompt heads: every decode prefills its whole prompt (`prefix_cache=PrefixCache.off(model)`)."""
        return cls(model, enabled=False)

    def head(self, context: str = "", language: Optional[str] = None, hotwords: Sequence[str] = ()) -> list[KVCache]:
        """The stored keys and values of the prompt's head (model.prompt_parts), computed on first use.
        Keyed by the head's ids, so hotwords (in the head for both families) are part of the key.
        Read only: decode on `cache(...)`, never on these."""
        ids = self.model.prompt_parts(context, language, hotwords)[0]
        key = tuple(ids)
        if key in self._heads:
            self.hits += 1
            self._heads.move_to_end(key)
            return self._heads[key][1]
        self.misses += 1
        held = self.model.make_cache()
        prefill(self.model, self.model.embed(mx.array(ids)), held)
        size = sum(layer.nbytes for layer in held)
        if size <= self.max_bytes:
            while self._heads and self.nbytes + size > self.max_bytes:
                _, (_, dropped) = self._heads.popitem(last=False)
                self.nbytes -= sum(layer.nbytes for layer in dropped)
            self._heads[key] = (context, held)
            self.nbytes += size
        return held

    def stats(self) -> dict[str, int]:
        """Heads stored, their bytes, hits and misses (plain ints: safe to read from another thread)."""
        return {"contexts": len(self._heads), "bytes": self.nbytes, "hits": self.hits, "misses": self.misses}

    @property
    def contexts(self) -> list[str]:
        """The contexts whose heads are stored, least recently used first."""
        return [context for context, _ in self._heads.values()]


def prefix_cache_for(model: Recogniser, prefix_cache: Optional[PrefixCache]) -> PrefixCache:
    """The PrefixCache a call or session uses: None -> a new one of its own, a PrefixCache -> that one
    (shared across calls: live sessions, the server; PrefixCache.off(model): none)."""
    if prefix_cache is None:
        return PrefixCache(model)
    if not isinstance(prefix_cache, PrefixCache):
        raise TypeError(
            f"prefix_cache must be a PrefixCache or None (one per call), got {prefix_cache!r}: "
            "for no prefix cache pass PrefixCache.off(model)"
        )
    if prefix_cache.model is not model:
        raise ValueError("prefix_cache belongs to another model: make one with PrefixCache(model)")
    return prefix_cache
