"""Greedy decoding: prompt embeddings -> generated token ids. The only place the decoder is driven.

    embeddings [1, L, hidden] -> prefill (logits of the last position only) -> argmax
    -> loop: embed token -> one decoder step on the KV cache -> argmax
    until a stop rule fires (StopRules: end-of-text, the token budget, a runaway repetition loop).

Step n+1 is scheduled with `mx.async_eval` before token n is read on the host, so the host's
bookkeeping overlaps the device's work. `choices` runs one forward pass over many new tokens (draft
verification in streaming, teacher forcing in the fidelity check) and returns the logits or picks
after each of them.
"""

from dataclasses import dataclass
from typing import Iterator, Literal, Optional, Sequence

import mlx.core as mx

from .model.cache import KVCache
from .model.model import Qwen3ASR
from .options import token_budget  # noqa: F401  (its old home)

# A loop is a tail of the form P P P ... with period len(P) <= MAX_LOOP_PERIOD, repeated at least
# max(MIN_LOOP_REPEATS, ceil(MIN_LOOP_TOKENS / period)) times: 32 x one token, 16 x two, 4 x eight.
# Real speech ("no, no, no", "thank you thank you") stays far below this.
MAX_LOOP_PERIOD = 32
MIN_LOOP_REPEATS = 4
MIN_LOOP_TOKENS = 32

# Why decoding ended: end-of-text, the token budget, or a repetition loop (cut down to one copy).
FinishReason = Literal["stop", "length", "repetition"]


class FinishFlags:
    """The finish_reason as the two flags results carried before it existed."""

    finish_reason: FinishReason

    @property
    def hit_token_budget(self) -> bool:
        """Decoding stopped at the token budget, not at end-of-text."""
        return self.finish_reason == "length"

    @property
    def repetition_trimmed(self) -> bool:
        """A runaway loop was detected, stopped and cut out."""
        return self.finish_reason == "repetition"


@dataclass
class Decoding(FinishFlags):
    """What one decode produced after its prompt (and after a forced prefix, if any)."""

    token_ids: list[int]  # end-of-text excluded; a loop cut down to one copy
    finish_reason: FinishReason = "stop"
    draft_accepted: int = 0  # draft tokens confirmed by one batched verification pass (streaming)
    prefilled: int = 0  # prompt tokens run through the decoder (the rest came from the KV cache)


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


class StopRules:
    """The stop rules, applied token by token: every decode (offline, streaming, batched) uses them.

    `prefix`: tokens already forced before the new ones; a loop is looked for over prefix + new
    tokens, but the cut never reaches into the prefix (it is committed text).
    """

    def __init__(
        self, eos_token_ids: Sequence[int], max_new_tokens: int, prefix: Sequence[int] = (), stop_loops: bool = True
    ):
        self.eos, self.budget = frozenset(eos_token_ids), max_new_tokens
        self.prefix, self.stop_loops = list(prefix), stop_loops
        self.result = Decoding([], finish_reason="length")
        self.done = max_new_tokens <= 0

    def add(self, token: int) -> bool:
        """Take the next greedy token; True when decoding must stop."""
        if token in self.eos:
            self.result.finish_reason, self.done = "stop", True
            return True
        tokens = self.result.token_ids
        tokens.append(token)
        cut = find_loop(self.prefix + tokens) if self.stop_loops else None
        if cut:
            del tokens[max(0, len(tokens) - cut) :]
            self.result.finish_reason, self.done = "repetition", True
        elif len(tokens) >= self.budget:
            self.done = True
        return self.done


def generate_steps(model: Qwen3ASR, embeddings: mx.array, cache: list[KVCache], max_tokens: int) -> Iterator[int]:
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


def decode(model: Qwen3ASR, embeddings: mx.array, cache: list[KVCache], rules: StopRules) -> Decoding:
    """Greedy decoding from embeddings [1, L, hidden] on `cache` until `rules` say stop."""
    remaining = rules.budget - len(rules.result.token_ids)
    if not rules.done:
        for token in generate_steps(model, embeddings, cache, remaining):
            if rules.add(token):
                break
    return rules.result


def generate(
    model: Qwen3ASR, embeddings: mx.array, max_new_tokens: int, eos_token_ids: Sequence[int]
) -> Decoding:
    """Decode greedily from prompt embeddings [1, L, hidden] with a fresh cache."""
    return decode(model, embeddings, model.make_cache(), StopRules(eos_token_ids, max_new_tokens))


def choices(model: Qwen3ASR, embeddings: mx.array, cache: Optional[list[KVCache]], last: int) -> mx.array:
    """One forward pass over embeddings [1, L, hidden]: logits [last, vocab] at its last `last` positions
    (the model's next-token choice after each of them)."""
    hidden = model.model(embeddings, cache)
    return model.logits(hidden[0, -last:])
