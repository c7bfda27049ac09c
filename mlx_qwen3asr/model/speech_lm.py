"""The Qwen3 decoder as a component a family holds: audio features spliced into its prompt, logits.

    prompt ids [L] (n_audio x the family's audio placeholder inside) -> model.embed_tokens
    -> each placeholder replaced by the next audio feature (embed) -> [1, L, hidden]
    -> model (TextModel, + KV cache) -> hidden -> tied embedding or the family's lm_head -> logits

A family holds `model` (TextModel) and, when untied, `lm_head` under the checkpoint's names, and takes
these functions as its methods (`@holds_decoder`, or one by one: `embed = speech_lm.embed`): the decode
loop (generate.py), batching, streaming and the prefix cache call them on any recogniser. No base class:
each family's __init__ is its own.
"""

from collections.abc import Sequence
from typing import Optional

import mlx.core as mx

from .cache import KVCache
from .step import DecodeStep


def embed(family, prompt_ids: mx.array, audio_features: Optional[mx.array] = None) -> mx.array:
    """Prompt ids [L] -> embeddings [1, L, hidden], each audio placeholder (args.audio_token_id) taking
    the next audio feature."""
    embeddings = family.model.embed_tokens(prompt_ids)
    if audio_features is None:
        return embeddings[None]
    is_audio = prompt_ids == family.args.audio_token_id
    n_pads = int(is_audio.sum().item())
    if n_pads != audio_features.shape[0]:
        raise ValueError(f"prompt has {n_pads} audio pads but the encoder gave {audio_features.shape[0]}")
    # Position of each prompt token among the audio features (valid where is_audio).
    feature_index = mx.maximum(mx.cumsum(is_audio.astype(mx.int32)) - 1, 0)
    spliced = audio_features.astype(embeddings.dtype)[feature_index]
    return mx.where(is_audio[:, None], spliced, embeddings)[None]


def logits(family, hidden: mx.array) -> mx.array:
    """Hidden states -> logits (the tied embedding as the LM head, unless the family has its own)."""
    if "lm_head" not in family:
        return family.model.embed_tokens.as_linear(hidden)
    return family.lm_head(hidden)


def forward(family, embeddings: mx.array, cache: Optional[list[KVCache]] = None, last_only: bool = True) -> mx.array:
    """Embeddings [1, L, hidden] -> logits [1, 1 or L, vocab] (only the last position by default)."""
    return family.logits(family.model(embeddings, cache, last_only))


def decode_step(family) -> DecodeStep:
    """The compiled one-token step on a one-row cache (made on first use; model/step.py). The decode
    loop calls it for one row; prompts and batches run through the forward pass."""
    if getattr(family, "_decode_step", None) is None:
        family._decode_step = DecodeStep(family)
    return family._decode_step


def prompt_parts(
    family, context: str = "", language: Optional[str] = None, hotwords: Sequence[str] = ()
) -> tuple[list[int], list[int]]:
    """The family's prompt ids before its audio placeholders (the head: the same for every audio with this
    context, language and hotwords; prefix_cache.py keeps its keys and values) and after them (the tail)."""
    ids = family.prompt_ids(1, context, language, hotwords)
    pad = ids.index(family.args.audio_token_id)
    return ids[:pad], ids[pad + 1 :]


def make_cache(family) -> list[KVCache]:
    """An empty KV cache: one KVCache per decoder layer."""
    return [KVCache() for _ in family.model.layers]


def holds_decoder(cls: type) -> type:
    """Class decorator of a recogniser: these functions become its methods (its own, not inherited)."""
    methods = {"embed": embed, "logits": logits, "__call__": forward, "decode_step": decode_step}
    for name, function in {**methods, "make_cache": make_cache, "prompt_parts": prompt_parts}.items():
        setattr(cls, name, function)
    return cls
