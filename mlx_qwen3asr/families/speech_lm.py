"""The base class of the families built on the Qwen3 decoder (Qwen3-ASR, Fun-ASR-Nano, the aligner):
audio features spliced into the decoder's prompt, logits, the KV cache and the compiled decode step.

    prompt ids [L] (n_audio x the family's audio placeholder inside) -> model.embed_tokens
    -> each placeholder replaced by the next audio feature (embed) -> [1, L, hidden]
    -> model (TextModel, + KV cache) -> hidden -> tied embedding or the family's lm_head -> logits

A family subclasses SpeechLM, calls `super().__init__(args)` (which builds `model`, the decoder under
its checkpoint names) and adds its audio side, and an `lm_head` when its head is not the tied
embedding. The decode loop (decode/generate.py), batching, streaming and the prefix cache call these
methods on any recogniser (families/recogniser.py's Protocol names them all).
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import mlx.core as mx
import mlx.nn as nn

from ..layers.cache import KVCache
from ..layers.decoder import TextModel
from ..layers.step import DecodeStep


class SpeechLM(nn.Module):
    """The Qwen3 decoder with an audio side; `args.text` sizes the decoder, `args.audio_token_id` is the
    prompt's audio placeholder."""

    tokenizer_split_pattern: Optional[str] = None  # another pre-tokenizer split than the tokenizer's own
    keep_float: tuple[str, ...] = ()  # module path prefixes the converter never quantizes
    audio_prefixes: tuple[str, ...] = ("audio_tower.",)  # the audio side: quantized at the encoder's bits
    cpu_swaps: dict[type, type] = {}  # the family's own CPU swaps (layers/two_stream_layers.install)
    gpu_installs: tuple = ()  # functions(model) swapping in the family's own GPU path (loading/device_path.py)

    def __init__(self, args: Any):
        super().__init__()
        self.args = args
        self.model = TextModel(args.text)
        self.tokenizer = None  # set by load(): the checkpoint's tokenizer
        self.path: Optional[Path] = None  # set by load(): the folder the weights came from
        self._decode_step: Optional[DecodeStep] = None  # compiled on first use (it holds the weights)

    def embed(self, prompt_ids: mx.array, audio_features: Optional[mx.array] = None) -> mx.array:
        """Prompt ids [L] -> embeddings [1, L, hidden], each audio placeholder (args.audio_token_id) taking
        the next audio feature."""
        embeddings = self.model.embed_tokens(prompt_ids)
        if audio_features is None:
            return embeddings[None]
        is_audio = prompt_ids == self.args.audio_token_id
        n_pads = int(is_audio.sum().item())
        if n_pads != audio_features.shape[0]:
            raise ValueError(f"prompt has {n_pads} audio pads but the encoder gave {audio_features.shape[0]}")
        # Position of each prompt token among the audio features (valid where is_audio).
        feature_index = mx.maximum(mx.cumsum(is_audio.astype(mx.int32)) - 1, 0)
        spliced = audio_features.astype(embeddings.dtype)[feature_index]
        return mx.where(is_audio[:, None], spliced, embeddings)[None]

    def logits(self, hidden: mx.array) -> mx.array:
        """Hidden states -> logits (the tied embedding as the LM head, unless the family has its own)."""
        if "lm_head" not in self:
            return self.model.embed_tokens.as_linear(hidden)
        return self.lm_head(hidden)

    def __call__(self, embeddings: mx.array, cache: Optional[list[KVCache]] = None, last_only: bool = True):
        """Embeddings [1, L, hidden] -> logits [1, 1 or L, vocab] (only the last position by default)."""
        return self.logits(self.model(embeddings, cache, last_only))

    def decode_step(self) -> DecodeStep:
        """The compiled one-token step on a one-row cache (made on first use; layers/step.py). The decode
        loop calls it for one row; prompts and batches run through the forward pass."""
        if self._decode_step is None:
            self._decode_step = DecodeStep(self)
        return self._decode_step

    def prompt_ids(
        self, n_audio: int, context: str = "", language: Optional[str] = None, hotwords: Sequence[str] = ()
    ) -> list[int]:
        raise NotImplementedError(f"{type(self).__name__} builds no recognition prompt")

    def prompt_parts(
        self, context: str = "", language: Optional[str] = None, hotwords: Sequence[str] = ()
    ) -> tuple[list[int], list[int]]:
        """The family's prompt ids before its audio placeholders (the head: the same for every audio with
        this context, language and hotwords; decode/prefix_cache.py keeps its keys and values) and after
        them (the tail)."""
        ids = self.prompt_ids(1, context, language, hotwords)
        pad = ids.index(self.args.audio_token_id)
        return ids[:pad], ids[pad + 1 :]

    def layer_stacks(self) -> tuple[tuple[str, nn.Module], ...]:
        """(path, owner) of each stack of layers (owner.layers), converted one layer at a time."""
        return (("audio_tower.layers", self.audio_tower), ("model.layers", self.model))

    def make_cache(self) -> list[KVCache]:
        """An empty KV cache: one KVCache per decoder layer."""
        return [KVCache() for _ in self.model.layers]
