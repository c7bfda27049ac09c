"""Decoder key/value caches: one per layer, grown in steps so decoding does not copy every token.

`KVCache` holds one row. `BatchKVCache` holds several rows decoded together, left-padded to a common
length: row b's tokens sit at the right end of the time axis, after `left_padding[b]` unused slots.
It gives each row its own RoPE position (`offset`, an array [B]) and a mask that hides the padding,
so every row attends to exactly its own tokens at exactly its own positions:

    time axis:  row 0  . . . t t t t t      left_padding 3, offset 5
                row 1  t t t t t t t t      left_padding 0, offset 8
"""

import mlx.core as mx


def _allocate(like: mx.array, rows: int, capacity: int) -> mx.array:
    return mx.zeros((rows, like.shape[1], capacity, like.shape[3]), like.dtype)


def _capacity(needed: int, step: int) -> int:
    return ((needed + step - 1) // step) * step


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
            self.keys, self.values = self._grown(keys, values, start + length)
        self.offset = start + length
        self.keys[..., start : self.offset, :] = keys
        self.values[..., start : self.offset, :] = values
        return self.keys[..., : self.offset, :], self.values[..., : self.offset, :]

    def _grown(self, keys: mx.array, values: mx.array, needed: int) -> tuple[mx.array, mx.array]:
        """New storage for `needed` tokens (shaped like keys/values), holding the tokens kept so far."""
        capacity = _capacity(needed, self.step)
        new_k, new_v = _allocate(keys, keys.shape[0], capacity), _allocate(values, values.shape[0], capacity)
        if self.keys is not None and self.offset:
            new_k[..., : self.offset, :] = self.keys[..., : self.offset, :]
            new_v[..., : self.offset, :] = self.values[..., : self.offset, :]
        return new_k, new_v

    def mask(self, length: int):
        """The attention mask for `length` new tokens: causal over a prompt, nothing for one token."""
        return "causal" if length > 1 else None

    def reserve(self, tokens: int) -> None:
        """Make the storage hold at least `tokens` tokens (grown by the same rule as appending)."""
        if tokens > self.keys.shape[2]:
            self.keys, self.values = self._grown(self.keys, self.values, tokens)

    def store(self, keys: mx.array, values: mx.array, offset: int) -> None:
        """Take whole new storage (the compiled step's output: the old storage with slots written)
        holding `offset` tokens."""
        self.keys, self.values, self.offset = keys, values, offset

    def trim(self, n: int) -> int:
        """Forget the last n tokens (the storage stays); returns how many were forgotten."""
        n = min(self.offset, n)
        self.offset -= n
        return n

    def copy(self, room: int = 0) -> "KVCache":
        """A cache of its own holding the same tokens (writing to one never changes the other), with
        storage allocated now for `room` more tokens, so the next prefill does not grow it."""
        other = KVCache()
        if self.keys is not None and self.offset:
            capacity = _capacity(self.offset + room, self.step)
            other.keys = _allocate(self.keys, self.keys.shape[0], capacity)
            other.values = _allocate(self.values, self.values.shape[0], capacity)
            other.keys[..., : self.offset, :] = self.keys[..., : self.offset, :]
            other.values[..., : self.offset, :] = self.values[..., : self.offset, :]
            other.offset = self.offset
        return other

    @property
    def nbytes(self) -> int:
        """Bytes of the keys and values held (the storage allocated, spare room included)."""
        return 0 if self.keys is None else self.keys.nbytes + self.values.nbytes

    @property
    def state(self) -> tuple[mx.array, mx.array]:
        return self.keys, self.values


def trim_cache(cache: list[KVCache], n: int) -> None:
    """Forget the last n tokens of every layer's cache (the storage stays)."""
    for layer in cache:
        layer.trim(n)


class BatchKVCache:
    """One layer's keys/values for rows decoded together (see the module docstring)."""

    step = KVCache.step

    def __init__(self, rows: list[KVCache]):
        """Left-pad the rows' caches (each filled by its own prefill) into one batch."""
        self.length = max(row.offset for row in rows)  # time slots in use, padding included
        self.left_padding = mx.array([self.length - row.offset for row in rows])
        self.offset = mx.array([row.offset for row in rows])
        capacity = _capacity(self.length + 1, self.step)
        self.keys = _allocate(rows[0].keys, len(rows), capacity)
        self.values = _allocate(rows[0].values, len(rows), capacity)
        for b, row in enumerate(rows):
            start = self.length - row.offset
            self.keys[b : b + 1, :, start : self.length] = row.keys[..., : row.offset, :]
            self.values[b : b + 1, :, start : self.length] = row.values[..., : row.offset, :]

    def update_and_fetch(self, keys: mx.array, values: mx.array) -> tuple[mx.array, mx.array]:
        """Append [B, kv_heads, L, head_dim] keys/values (one new token per row in each)."""
        start, length = self.length, keys.shape[2]
        if start + length > self.keys.shape[2]:
            capacity = _capacity(start + length, self.step)
            grown_k, grown_v = _allocate(keys, keys.shape[0], capacity), _allocate(values, values.shape[0], capacity)
            grown_k[..., :start, :], grown_v[..., :start, :] = self.keys[..., :start, :], self.values[..., :start, :]
            self.keys, self.values = grown_k, grown_v
        self.length, self.offset = start + length, self.offset + length
        self.keys[..., start : self.length, :] = keys
        self.values[..., start : self.length, :] = values
        return self.keys[..., : self.length, :], self.values[..., : self.length, :]

    def mask(self, length: int) -> mx.array:
        """Bool [B, 1, length, keys]: causal over the new tokens, and never a row's left padding."""
        keys = self.length + length  # the mask is asked for before the new tokens are appended
        key_index = mx.arange(keys)
        causal = mx.arange(length)[:, None] + (keys - length) >= key_index[None]
        return (causal[None] & (key_index >= self.left_padding[:, None, None]))[:, None]

    def filter(self, rows: mx.array) -> None:
        """Keep only `rows` (indices into the batch), and drop the padding column they all share."""
        self.keys, self.values = self.keys[rows], self.values[rows]
        self.offset, self.left_padding = self.offset[rows], self.left_padding[rows]
        shared = int(self.left_padding.min().item())
        if shared:
            self.keys, self.values = self.keys[..., shared:, :], self.values[..., shared:, :]
            self.length -= shared
            self.left_padding = self.left_padding - shared


def batch_cache(caches: list[list[KVCache]], consume: bool = False) -> list[BatchKVCache]:
    """Per-row caches (one list of layers per row) -> one left-padded batch cache per layer.
    `consume`: empty the row caches layer by layer as they are copied (peak: one layer held twice)."""
    joined = []
    for layer in zip(*caches):
        joined.append(BatchKVCache(list(layer)))
        if consume:
            mx.eval(joined[-1].keys, joined[-1].values)
            for row in layer:
                row.keys, row.values, row.offset = None, None, 0
    return joined
