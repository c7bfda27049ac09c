"""One streaming decoder run: audio window + forced text prefix -> the model's continuation.

    audio window [samples] -> features [n_audio, hidden]   (model.encoder_cache(): Qwen3-ASR's re-encodes only changed 8 s windows)
    prompt = head (system, context, <|audio_start|>) + n_audio pads + tail (<|audio_end|> ...
             assistant turn [+ "language X<asr_text>"]) + forced prefix ids
    KV cache: head + the audio tokens of unchanged encoder windows are kept from the last run
              (their keys/values depend only on what precedes them); the rest is prefilled;
              a fresh cache starts from a copy of the head's keys/values (PrefixCache)
    draft (the last run's tokens after the prefix) is appended to that prefill: one forward gives
              the model's choice after every draft token; the longest agreeing run is accepted and
              the first disagreement is the model's own next token, as token-by-token decoding
              would give (greedy-exact); then plain greedy steps continue
    stop at end-of-text, the token budget, or a repetition loop (over prefix + new tokens).

Each optimisation is a constructor switch so tests can check that on and off give the same tokens.

A window's ids read as text by the decode tail (decode/answer.py): `read_partial` (append-only: the text of a
prefix of the ids is a prefix of the text), `final_text` (the official parse once the window is
closed, when it extends what is committed), and `rollback` (the prefix rule's "minus the last K
tokens, not inside a UTF-8 character").
"""

from collections.abc import Sequence
from typing import Optional, Protocol

import mlx.core as mx
import numpy as np

from ..decode.answer import Reader, read_answer, read_partial
from ..decode.generate import Decoding, StopRules, choices, decode
from ..decode.prefix_cache import PrefixCache, prefix_cache_for
from ..families.recogniser import Recogniser, encode_audio
from ..layers.cache import KVCache, trim_cache
from ..options import DecodeOptions
from ..text.script import join_text
from ..text.tokenizer import Tokenizer
from .updates import StreamingTuning


def final_text(reader: Reader, ids: Sequence[int], committed: str, forced_language: Optional[str]) -> tuple[str, str]:
    """(language, text) of a closed window: the model's own parse (as offline transcription gives it)
    when it extends the committed text, else the append-only reading."""
    language, text = read_answer(reader, ids, forced_language)
    if text.startswith(committed):
        return language, text
    return read_partial(reader, ids, forced_language)


def joined(base: str, text: str) -> str:
    """The session text `base` followed by a window's text, joined by script (text/script.py)."""
    return join_text(base, text)


def rollback(tokenizer, ids: Sequence[int], n: int, floor: int) -> list[int]:
    """ids minus their last n, shortened further while the text would end inside a UTF-8 character
    (decoding then shows U+FFFD), but never below `floor` ids."""
    end = max(len(ids) - n, floor)
    while end > floor and "\ufffd" in tokenizer.decode(list(ids[:end])):
        end -= 1
    return list(ids[:end])


class Decoder(Reader, Protocol):
    """What StreamingTranscriber needs from its window decoder (WindowDecoder below; tests pass fakes):
    a Reader of its ids, and decode/reset."""

    def decode(
        self, audio: np.ndarray, prefix: Sequence[int], draft: Sequence[int], max_new_tokens: int
    ) -> Decoding: ...

    def reset(self) -> None: ...


class WindowDecoder:
    """Decodes a streaming window; keeps encoder and decoder state between runs on the same window."""

    def __init__(
        self,
        model: Recogniser,
        options: DecodeOptions = DecodeOptions(),
        *,
        encoder_cache: bool = True,
        kv_reuse: bool = True,
        draft: bool = True,
        stop_loops: bool = True,
        prefixes: Optional[PrefixCache] = None,
    ):
        """prefixes: where a fresh cache takes the prompt head's keys and values from (None: a
        PrefixCache of its own; PrefixCache.off(model): the head is prefilled with the rest of the
        first prompt)."""
        self.model, self.prefixes = model, prefix_cache_for(model, prefixes)
        self.context, self.language = options.context, options.language
        self.hotwords = options.hotwords
        self.head, self.tail = model.prompt_parts(options.context, options.language, options.hotwords)
        self.audio_pad_id = model.args.audio_token_id
        # only an encoder attending in fixed windows has per-window features to keep (not Fun-ASR-Nano's)
        self.encoder = model.encoder_cache() if encoder_cache else None  # None: the family keeps none
        self.kv_reuse, self.draft, self.stop_loops = kv_reuse, draft, stop_loops
        self.cache: list[KVCache] = model.make_cache()

    @property
    def tokenizer(self) -> Tokenizer:
        return self.model.tokenizer

    def parse_output(self, raw: str, forced_language: Optional[str] = None) -> tuple[str, str]:
        return self.model.parse_output(raw, forced_language)

    def parse_partial(self, raw: str, forced_language: Optional[str] = None) -> tuple[str, str]:
        return self.model.parse_partial(raw, forced_language)

    def reset(self) -> None:
        """A new window starts: cached audio features and their keys/values no longer apply."""
        if self.encoder is not None:
            self.encoder.reset()
        trim_cache(self.cache, max(0, self.cache[0].offset - len(self.head)))

    def decode(self, audio: np.ndarray, prefix: Sequence[int], draft: Sequence[int], max_new_tokens: int) -> Decoding:
        """Greedy continuation of `prefix` for this audio, at most max_new_tokens new tokens."""
        if self.encoder is not None:
            features, stable = self.encoder.features(audio)
        else:
            features, stable = encode_audio(self.model, audio), 0
        prompt = self.head + [self.audio_pad_id] * features.shape[0] + self.tail + list(prefix)
        keep = self._reusable(len(self.head) + stable)
        embeddings = self.model.embed(mx.array(prompt), features)[:, keep:]
        rules = StopRules(self.tokenizer.eos_token_ids, max_new_tokens, prefix, self.stop_loops)
        draft = list(draft)[: max(0, max_new_tokens)] if self.draft else []
        if not rules.done:
            next_token = self._prefill(embeddings, draft, rules)
            if not rules.done:
                decode(self.model, self.model.model.embed_tokens(mx.array([[next_token]])), self.cache, rules)
        rules.result.prefilled = len(prompt) - keep
        return rules.result

    def _reusable(self, stable: int) -> int:
        """Trim the KV cache to its longest prefix still valid for the new prompt; return its length."""
        if not self.kv_reuse or not self.cache[0].offset:
            self.cache = self.prefixes.cache(self.context, self.language, hotwords=self.hotwords)
        keep = min(stable, self.cache[0].offset)
        trim_cache(self.cache, self.cache[0].offset - keep)
        return keep

    def _prefill(self, embeddings: mx.array, draft: list[int], rules: StopRules) -> int:
        """Prefill the prompt (+ draft) in one pass; give the rules every token the model confirms.

        Returns the first token not yet in the cache (the next decoder input) when decoding goes on.
        """
        if draft:
            draft_embeddings = self.model.model.embed_tokens(mx.array(draft))[None]
            embeddings = mx.concatenate([embeddings, draft_embeddings], axis=1)
        picks = mx.argmax(choices(self.model, embeddings, self.cache, len(draft) + 1), axis=-1).tolist()
        for i, token in enumerate(picks):
            agrees = i < len(draft) and token == draft[i]
            rules.result.draft_accepted += agrees
            if rules.add(token):
                return token
            if not agrees:
                trim_cache(self.cache, len(draft) - i)  # keys/values of draft tokens after the disagreement
                return token
        raise AssertionError("unreachable: the last choice always returns")


def window_decoder(
    model: Recogniser,
    options: DecodeOptions,
    t: StreamingTuning = StreamingTuning(),
    prefix_cache: Optional[PrefixCache] = None,
) -> WindowDecoder:
    """StreamingTranscriber's decoder on `model` with tuning `t`, for options already checked against it (a
    LiveSession's engine passes it in, so that its options are checked once, at the session's door)."""
    return WindowDecoder(model, options, encoder_cache=t.encoder_cache, kv_reuse=t.kv_reuse, draft=t.draft,
                         stop_loops=t.stop_loops, prefixes=prefix_cache)  # fmt: skip
