"""One streaming decoder run: audio window + forced text prefix -> the model's continuation.

    audio window [samples] -> features [n_audio, hidden]   (EncoderCache: only changed 8 s windows)
    prompt = head (system, context, <|audio_start|>) + n_audio pads + tail (<|audio_end|> ...
             assistant turn [+ "language X<asr_text>"]) + forced prefix ids
    KV cache: head + the audio tokens of unchanged encoder windows are kept from the last run
              (their keys/values depend only on what precedes them); the rest is prefilled
    draft (the last run's tokens after the prefix) is appended to that prefill: one forward gives
              the model's choice after every draft token; the longest agreeing run is accepted and
              the first disagreement is the model's own next token, as token-by-token decoding
              would give (greedy-exact); then plain greedy steps continue
    stop at end-of-text, the token budget, or a repetition loop (over prefix + new tokens).

Each optimisation is a constructor switch so tests can check that on and off give the same tokens.

A window's ids read as text: `window_text` (append-only: the text of a prefix of the ids is a prefix
of the text), `final_text` (the official parse once the window is closed), and `rollback` (the
prefix rule's "minus the last K tokens, not inside a UTF-8 character").
"""

from dataclasses import dataclass
from typing import Optional, Sequence

import mlx.core as mx
import numpy as np

from ..model.cache import KVCache
from .encoder_cache import EncoderCache
from ..generate import find_loop, generate_steps
from ..model.model import Qwen3ASR, encode_audio
from ..tokenizer import ASR_TEXT_TAG, Tokenizer, build_prompt, parse_output


# Text of a window's ids. The header "language X<asr_text>" ends within this many characters, or the
# output has none; deciding only then keeps the text of a prefix a prefix of the text (append-only).
MAX_HEADER_CHARS = 40


def window_text(tokenizer, ids: Sequence[int], forced_language: Optional[str] = None) -> tuple[str, str]:
    """(language, text) of a window's output ids; the text of a prefix of ids is a prefix of this one.

    Unlike parse_output there is no clean-up that could rewrite earlier text: a header still being
    written gives "", and output without a header is all text.
    """
    decoded = tokenizer.decode(list(ids)).lstrip()
    if forced_language:
        return forced_language, decoded.rstrip()
    tag = decoded.find(ASR_TEXT_TAG)
    if "language".startswith(decoded[:8]):
        if 0 <= tag <= MAX_HEADER_CHARS:
            language = parse_output(decoded[: tag + len(ASR_TEXT_TAG)])[0]
            return language, decoded[tag + len(ASR_TEXT_TAG) :].strip()
        if tag < 0 and len(decoded) < MAX_HEADER_CHARS + len(ASR_TEXT_TAG):
            return "", ""
    return "", decoded.rstrip()


def final_text(
    tokenizer, ids: Sequence[int], committed: str, forced_language: Optional[str]
) -> tuple[str, str]:
    """(language, text) of a closed window: the official parse (as offline transcription gives it)
    when it extends the committed text, else the append-only reading."""
    language, text = parse_output(tokenizer.decode(list(ids)), forced_language)
    if text.startswith(committed):
        return language, text
    return window_text(tokenizer, ids, forced_language)


def rollback(tokenizer, ids: Sequence[int], n: int, floor: int) -> list[int]:
    """ids minus their last n, shortened further while the text would end inside a UTF-8 character
    (decoding then shows U+FFFD), but never below `floor` ids."""
    end = max(len(ids) - n, floor)
    while end > floor and "\ufffd" in tokenizer.decode(list(ids[:end])):
        end -= 1
    return list(ids[:end])


@dataclass
class Decoding:
    """What one decoder run produced after the forced prefix."""

    token_ids: list[int]  # end-of-text excluded; a loop cut down to one copy
    hit_token_budget: bool = False
    loop_trimmed: bool = False
    draft_accepted: int = 0  # draft tokens confirmed by the batched verification
    prefilled: int = 0  # prompt tokens run through the decoder (the rest came from the KV cache)


class _Collector:
    """Applies generate()'s stopping rules token by token, so draft and plain decoding agree."""

    def __init__(self, prefix: Sequence[int], budget: int, eos: Sequence[int], stop_loops: bool):
        self.prefix, self.budget, self.eos, self.stop_loops = list(prefix), budget, set(eos), stop_loops
        self.result = Decoding([], hit_token_budget=budget <= 0)
        self.done = budget <= 0

    def add(self, token: int) -> bool:
        """Take the next greedy token; True when decoding must stop."""
        if token in self.eos:
            self.done = True
            return True
        tokens = self.result.token_ids
        tokens.append(token)
        cut = find_loop(self.prefix + tokens) if self.stop_loops else None
        if cut:
            del tokens[max(0, len(tokens) - cut) :]  # never into the prefix: it is committed text
            self.result.loop_trimmed = self.done = True
        elif len(tokens) >= self.budget:
            self.result.hit_token_budget = self.done = True
        return self.done


class WindowDecoder:
    """Decodes a streaming window; keeps encoder and decoder state between runs on the same window."""

    def __init__(
        self,
        model: Qwen3ASR,
        context: str = "",
        language: Optional[str] = None,
        *,
        encoder_cache: bool = True,
        kv_reuse: bool = True,
        draft: bool = True,
        stop_loops: bool = True,
    ):
        self.model = model
        prompt = build_prompt(model.tokenizer, 1, context=context, language=language)
        pad = prompt.index(model.tokenizer.audio_pad_id)
        self.head, self.tail = prompt[:pad], prompt[pad + 1 :]
        self.encoder = EncoderCache(model) if encoder_cache else None
        self.kv_reuse, self.draft, self.stop_loops = kv_reuse, draft, stop_loops
        self.cache: list[KVCache] = model.make_cache()

    @property
    def tokenizer(self) -> Tokenizer:
        return self.model.tokenizer

    def reset(self) -> None:
        """A new window starts: cached audio features and their keys/values no longer apply."""
        if self.encoder is not None:
            self.encoder.reset()
        for layer in self.cache:
            layer.trim(max(0, layer.offset - len(self.head)))

    def decode(
        self, audio: np.ndarray, prefix: Sequence[int], draft: Sequence[int], max_new_tokens: int
    ) -> Decoding:
        """Greedy continuation of `prefix` for this audio, at most max_new_tokens new tokens."""
        if self.encoder is not None:
            features, stable = self.encoder.features(audio)
        else:
            features, stable = encode_audio(self.model, audio), 0
        prompt = self.head + [self.tokenizer.audio_pad_id] * features.shape[0] + self.tail + list(prefix)
        keep = self._reusable(len(self.head) + stable)
        embeddings = self.model.embed(mx.array(prompt), features)[:, keep:]
        collector = _Collector(prefix, max_new_tokens, self.tokenizer.eos_token_ids, self.stop_loops)
        draft = list(draft)[: max(0, max_new_tokens)] if self.draft else []
        if not collector.done:
            next_token = self._prefill(embeddings, draft, collector)
            if not collector.done:
                self._continue(next_token, collector)
        collector.result.prefilled = len(prompt) - keep
        return collector.result

    def _reusable(self, stable: int) -> int:
        """Trim the KV cache to its longest prefix still valid for the new prompt; return its length."""
        if not self.kv_reuse:
            self.cache = self.model.make_cache()
            return 0
        keep = min(stable, self.cache[0].offset)
        for layer in self.cache:
            layer.trim(layer.offset - keep)
        return keep

    def _prefill(self, embeddings: mx.array, draft: list[int], collector: _Collector) -> int:
        """Prefill the prompt (+ draft) in one pass; feed the collector every token the model confirms.

        Returns the first token not yet in the cache (the next decoder input) when decoding goes on.
        """
        if draft:
            draft_embeddings = self.model.model.embed_tokens(mx.array(draft))[None]
            embeddings = mx.concatenate([embeddings, draft_embeddings], axis=1)
        hidden = self.model.model(embeddings, self.cache)
        choices = mx.argmax(self.model.logits(hidden[:, -(len(draft) + 1) :]), axis=-1)[0].tolist()
        for i, token in enumerate(choices):
            agrees = i < len(draft) and token == draft[i]
            collector.result.draft_accepted += agrees
            if collector.add(token):
                return token
            if not agrees:
                for layer in self.cache:
                    layer.trim(len(draft) - i)  # keys/values of draft tokens after the disagreement
                return token
        raise AssertionError("unreachable: the last choice always returns")

    def _continue(self, token: int, collector: _Collector) -> None:
        """Plain greedy decoding from `token` (already emitted, not yet in the cache)."""
        remaining = collector.budget - len(collector.result.token_ids)
        inputs = self.model.model.embed_tokens(mx.array([[token]]))
        for token in generate_steps(self.model, inputs, self.cache, remaining):
            if collector.add(token):
                return
