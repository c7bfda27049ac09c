"""Greedy decoding: prompt embeddings -> generated token ids. The only place the decoder is driven.

    embeddings [1, L, hidden] -> prefill in blocks of PREFILL_BLOCK tokens (logits of the last position only)
                              -> argmax
    -> loop: embed token -> one decoder step on the KV cache -> argmax
    until a stop rule fires (StopRules: end-of-text, the token budget, a runaway repetition loop).

Step n+1 is scheduled with `mx.async_eval` before token n is read on the host, so the host's
bookkeeping overlaps the device's work. `choices` runs one forward pass over many new tokens (draft
verification in streaming, teacher forcing in the fidelity check) and returns the logits or picks
after each of them.
"""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Optional

import mlx.core as mx

from ..families.recogniser import Recogniser
from ..layers.cache import KVCache, batch_cache
from ..result import FinishFlags, FinishReason
from ..runtime.interrupt import check_interrupt
from ..runtime.two_streams import evaluated_on_two_streams, two_streams

# A loop is a tail of the form P P P ... with period len(P) <= MAX_LOOP_PERIOD, repeated at least
# max(MIN_LOOP_REPEATS, ceil(MIN_LOOP_TOKENS / period)) times: 32 x one token, 16 x two, 4 x eight.
# Real speech ("no, no, no", "thank you thank you") stays far below this.
MAX_LOOP_PERIOD = 32
MIN_LOOP_REPEATS = 4
MIN_LOOP_TOKENS = 32

# A prompt is run through the decoder this many tokens at a time, each block attending to the cache
# the blocks before it filled: attention holds scores [heads, block, keys], not [heads, L, L]. At the
# 10,000-token context limit the 0.6B model's scores (16 heads, float32) take 6.4 GB whole, 0.33 GB per
# block. A prompt of one block (every prompt without a long context) runs exactly as before.
PREFILL_BLOCK = 512


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


def generate_steps(model: Recogniser, embeddings: mx.array, cache: list[KVCache], max_tokens: int) -> Iterator[int]:
    """Greedy token ids, at most max_tokens of them, each next step already scheduled (no stop rules)."""
    rules = StopRules((), max_tokens, stop_loops=False)
    for tokens in decode_steps(model, [embeddings], [cache], [rules]):
        yield tokens[0]


def decode(model: Recogniser, embeddings: mx.array, cache: list[KVCache], rules: StopRules) -> Decoding:
    """Greedy decoding from embeddings [1, L, hidden] on `cache` until `rules` say stop."""
    return decode_batch(model, [embeddings], [cache], [rules])[0]


def decode_batch(
    model: Recogniser, embeddings: Sequence[mx.array], caches: Sequence[list[KVCache]], rules: Sequence[StopRules]
) -> list[Decoding]:
    """Greedy decoding of several rows together, each from its own embeddings [1, L_b, hidden] on its
    own cache until its own `rules` say stop; returns each row's Decoding. A row's cache may already
    hold the start of its prompt (a prompt head, decode/prefix_cache.py): its embeddings are then the rest."""
    for _ in decode_steps(model, embeddings, caches, rules):
        pass
    return [r.result for r in rules]


def decode_steps(
    model: Recogniser, embeddings: Sequence[mx.array], caches: Sequence[list[KVCache]], rules: Sequence[StopRules]
) -> Iterator[list[int]]:
    """The decode loop. Yields each step's tokens of the rows still decoding (after rules.add).

    Each row's prompt is prefilled alone on its own cache, exactly as a single decode would; several
    rows are then joined into a left-padded BatchKVCache and advance one token per step together.
    A row whose rules say stop leaves the batch (its cache row is dropped) and costs nothing more.
    One row decodes on its own cache with no mask, exactly as before batching existed; several
    rows' caches are consumed by the join (emptied, so their memory is not held twice).
    """
    rows = [b for b, r in enumerate(rules) if not r.done]
    if not rows:
        return
    with two_streams():  # on the CPU: every forward pass below in halves on two streams (two_streams.py)
        firsts = []
        for b in rows:
            firsts.append(mx.argmax(prefill_blocks(model, embeddings[b], caches[b])[:, -1], axis=-1))
            mx.async_eval(firsts[-1])
        # one row: the compiled step on its own cache (layers/step.py); several: one batch cache
        cache = caches[rows[0]] if len(rows) == 1 else batch_cache([caches[b] for b in rows], consume=True)
        step = model.decode_step() if len(rows) == 1 else model
        y = mx.concatenate(firsts) if len(firsts) > 1 else firsts[0]
        while True:
            check_interrupt()
            wants_more = any(len(rules[b].result.token_ids) + 1 < rules[b].budget for b in rows)
            if wants_more:  # schedule the next step before reading this one's tokens on the host
                next_y = mx.argmax(step(model.model.embed_tokens(y)[:, None], cache)[:, -1], axis=-1)
                mx.async_eval(next_y)
            tokens = y.tolist()
            keep = [i for i, (b, token) in enumerate(zip(rows, tokens)) if not rules[b].add(token)]
            yield tokens
            if not wants_more or not keep:
                return
            if len(keep) < len(rows):  # finished rows leave the batch
                kept = mx.array(keep)
                for layer in cache:
                    layer.filter(kept)
                rows, next_y = [rows[i] for i in keep], next_y[kept]
            y = next_y


@evaluated_on_two_streams
def prefill(model: Recogniser, embeddings: mx.array, cache: list[KVCache]) -> list[tuple[mx.array, mx.array]]:
    """Run embeddings [1, L, hidden] through the decoder onto `cache`, choosing nothing: a prompt's
    head computed once, whose keys and values many decodes then start from (decode/prefix_cache.py).
    Returns each layer's (keys, values), evaluated."""
    prefill_blocks(model, embeddings, cache)
    return [layer.state for layer in cache]


def prefill_blocks(model: Recogniser, embeddings: mx.array, cache: list[KVCache]) -> mx.array:
    """model(embeddings, cache): the logits [1, 1, vocab] of the last position, the prompt run in blocks
    of PREFILL_BLOCK tokens, each evaluated before the next (so memory is bounded by one block)."""
    length = embeddings.shape[1]
    for start in range(0, length - PREFILL_BLOCK, PREFILL_BLOCK):
        check_interrupt()
        model.model(embeddings[:, start : start + PREFILL_BLOCK], cache, last_only=True)
        mx.eval([layer.state for layer in cache])
        mx.clear_cache()  # each block's scores differ in size (keys grow): cached buffers would pile up
    check_interrupt()
    last = (length - 1) // PREFILL_BLOCK * PREFILL_BLOCK  # the last block: 1 to PREFILL_BLOCK tokens
    return model(embeddings[:, last:], cache)


def generate(model: Recogniser, embeddings: mx.array, max_new_tokens: int, eos_token_ids: Sequence[int]) -> Decoding:
    """Decode greedily from prompt embeddings [1, L, hidden] with a fresh cache."""
    return decode(model, embeddings, model.make_cache(), StopRules(eos_token_ids, max_new_tokens))


@evaluated_on_two_streams
def choices(model: Recogniser, embeddings: mx.array, cache: Optional[list[KVCache]], last: int) -> mx.array:
    """One forward pass over embeddings [1, L, hidden]: logits [last, vocab] at its last `last` positions
    (the model's next-token choice after each of them)."""
    return model.logits(model.model(embeddings, cache)[0, -last:])
