"""Greedy decoding: prompt embeddings -> generated token ids. The only place the decoder is driven.

    embeddings [1, L, hidden] -> prefill (logits of the last position only) -> argmax
    -> loop: embed token -> one decoder step on the KV cache -> argmax
    until end-of-text, the token budget, or a runaway repetition loop.

Step n+1 is scheduled with `mx.async_eval` before token n is read on the host, so the host's
bookkeeping overlaps the device's work.
"""

from dataclasses import dataclass
from typing import Iterator, Optional, Sequence

import mlx.core as mx

from .model.cache import KVCache
from .model.model import Qwen3ASR

# A loop is a tail of the form P P P ... with period len(P) <= MAX_LOOP_PERIOD, repeated at least
# max(MIN_LOOP_REPEATS, ceil(MIN_LOOP_TOKENS / period)) times: 32 x one token, 16 x two, 4 x eight.
# Real speech ("no, no, no", "thank you thank you") stays far below this.
MAX_LOOP_PERIOD = 32
MIN_LOOP_REPEATS = 4
MIN_LOOP_TOKENS = 32


@dataclass
class Generation:
    token_ids: list[int]  # without the end-of-text token
    hit_token_budget: bool = False
    repetition_trimmed: bool = False


def token_budget(seconds: float) -> int:
    """New tokens allowed for a clip: generous for fast speech (~15 tokens/s) plus the language header."""
    return 32 + int(15 * seconds + 0.999)


def generate_steps(
    model: Qwen3ASR, embeddings: mx.array, cache: list[KVCache], max_tokens: int
) -> Iterator[int]:
    """Greedy token ids, at most max_tokens of them, each next step already scheduled."""

    def step(inputs: mx.array) -> mx.array:
        return mx.argmax(model(inputs, cache)[:, -1], axis=-1)

    if max_tokens <= 0:
        return
    y = step(embeddings)
    mx.async_eval(y)
    for _ in range(max_tokens - 1):
        next_y = step(model.model.embed_tokens(y)[None])
        mx.async_eval(next_y)
        yield y.item()
        y = next_y
    yield y.item()


def find_loop(tokens: Sequence[int]) -> Optional[int]:
    """Length of the tail to cut if `tokens` ends in a runaway loop (one copy of the pattern stays)."""
    n = len(tokens)
    for period in range(1, min(MAX_LOOP_PERIOD, n // MIN_LOOP_REPEATS) + 1):
        repeats = max(MIN_LOOP_REPEATS, -(-MIN_LOOP_TOKENS // period))
        span = period * repeats
        if span > n:
            continue
        if all(tokens[n - 1 - i] == tokens[n - 1 - i - period] for i in range(span - period)):
            return span - period
    return None


def generate(
    model: Qwen3ASR, embeddings: mx.array, max_new_tokens: int, eos_token_ids: Sequence[int]
) -> Generation:
    """Decode greedily from prompt embeddings [1, L, hidden]."""
    tokens: list[int] = []
    for token in generate_steps(model, embeddings, model.make_cache(), max_new_tokens):
        if token in eos_token_ids:
            return Generation(tokens)
        tokens.append(token)
        cut = find_loop(tokens)
        if cut:
            return Generation(tokens[:-cut], repetition_trimmed=True)
    return Generation(tokens, hit_token_budget=True)
