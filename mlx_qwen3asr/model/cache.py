"""Decoder key/value cache: one per layer, grown in steps so decoding does not copy every token."""

import mlx.core as mx


class KVCache:
    step = 256  # tokens allocated at a time

    def __init__(self):
        self.keys = None
        self.values = None
        self.offset = 0  # tokens held; also the RoPE position of the next token

    def update_and_fetch(self, keys: mx.array, values: mx.array) -> tuple[mx.array, mx.array]:
        """Append [B, kv_heads, L, head_dim] keys/values; return everything held so far."""
        start, length = self.offset, keys.shape[2]
        if self.keys is None or start + length > self.keys.shape[2]:
            self._grow(keys, values, start + length)
        self.offset = start + length
        self.keys[..., start : self.offset, :] = keys
        self.values[..., start : self.offset, :] = values
        return self.keys[..., : self.offset, :], self.values[..., : self.offset, :]

    def _grow(self, keys: mx.array, values: mx.array, needed: int) -> None:
        capacity = ((needed + self.step - 1) // self.step) * self.step
        shape_k = (*keys.shape[:2], capacity, keys.shape[3])
        shape_v = (*values.shape[:2], capacity, values.shape[3])
        new_k, new_v = mx.zeros(shape_k, keys.dtype), mx.zeros(shape_v, values.dtype)
        if self.keys is not None and self.offset:
            new_k[..., : self.offset, :] = self.keys[..., : self.offset, :]
            new_v[..., : self.offset, :] = self.values[..., : self.offset, :]
        self.keys, self.values = new_k, new_v

    def trim(self, n: int) -> int:
        """Forget the last n tokens (the storage stays); returns how many were forgotten."""
        n = min(self.offset, n)
        self.offset -= n
        return n

    @property
    def state(self) -> tuple[mx.array, mx.array]:
        return self.keys, self.values


def trim_cache(cache: list[KVCache], n: int) -> None:
    """Forget the last n tokens of every layer's cache (the storage stays)."""
    for layer in cache:
        layer.trim(n)
