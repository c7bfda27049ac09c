"""Qwen3-ASR: the audio encoder's output spliced into the Qwen3 decoder's prompt embeddings.

    mel [frames, 128] -> audio_tower -> audio features [n_audio, hidden]
    prompt ids [L] (n_audio x <|audio_pad|> inside) -> embed_tokens -> pads replaced by the features
    -> decoder (+ KV cache) -> hidden [1, L, hidden] -> tied LM head -> logits

Module names are the checkpoint names with the `thinker.` prefix removed, so loading is a rename.
The decoder side (model, lm_head, embed, logits, the decode step) is the shared component of
families/speech_lm.py (the base class); everything else here is Qwen3-ASR's own.
"""

from collections.abc import Sequence
from typing import Optional

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ...audio.features import log_mel_spectrogram
from ...text.script import join_text
from ..speech_lm import SpeechLM
from .answer import parse_output, parse_partial
from .config import ModelArgs
from .encoder import AudioEncoder
from .encoder_cache import EncoderCache
from .gpu import install as install_gpu_encoder
from .languages import LANGUAGES
from .layout import official_name
from .prompt import build_prompt, prompt_context
from .two_streams import CPU_SWAPS

CHUNK_SECONDS = 30.0  # the official code decodes at most 30 s at once; longer audio is split at pauses
CONV_STEM = ("audio_tower.conv",)  # conv2d1-3 and conv_out: what conversions keep float
MAX_CONTEXT_TOKENS = 10_000  # the official service's documented limit for a context (hotwords included)


def checkpoint_names(weights: dict[str, mx.array]) -> dict[str, mx.array]:
    """Rename "-hf" layout tensors to the official Qwen3-ASR ones; official names pass through."""
    return {official_name(name): value for name, value in weights.items()}


def sanitize_weights(weights: dict[str, mx.array], tied_head: bool) -> dict[str, mx.array]:
    """Checkpoint tensors (official names, torch layout) -> module names and layout (the aligner's too).

    Idempotent: conv weights are transposed only while still in torch's [out, in, kh, kw] layout.
    """
    out = {}
    for name, value in weights.items():
        name = name.removeprefix("thinker.")
        if name == "lm_head.weight" and tied_head:
            continue  # a copy of embed_tokens in the official checkpoint
        if name.startswith("audio_tower.conv2d") and name.endswith(".weight") and value.shape[1] != 3:
            value = value.transpose(0, 2, 3, 1)
        out[name] = value
    return out


class Qwen3ASR(SpeechLM):
    task = "transcribe"
    languages = LANGUAGES
    chunk_seconds = CHUNK_SECONDS
    max_context_tokens = MAX_CONTEXT_TOKENS
    cpu_swaps = CPU_SWAPS  # the audio encoder on two streams (two_streams.py)
    gpu_installs = (install_gpu_encoder,)  # the audio encoder's GPU path (gpu.py)
    keep_float = CONV_STEM  # conversions keep the conv stem float

    def __init__(self, args: ModelArgs):
        super().__init__(args)
        self.audio_tower = AudioEncoder(args.audio)
        if not args.text.tie_word_embeddings:
            self.lm_head = nn.Linear(args.text.hidden_size, args.text.vocab_size, bias=False)

    parse_output = staticmethod(parse_output)  # "language X<asr_text>text" -> (language, text), cleaned
    parse_partial = staticmethod(parse_partial)  # a streaming window's answer so far (append-only)
    join_text = staticmethod(join_text)

    @property
    def dtype(self) -> mx.Dtype:
        return self.audio_tower.ln_post.weight.dtype

    @property
    def audio_tokens_per_second(self) -> float:
        """13 for the real checkpoints: 13 tokens per 100-frame (1 s) chunk."""
        return self.args.audio.tokens_per_chunk / (self.args.audio.chunk_frames / 100)

    def encoder_cache(self) -> EncoderCache:
        """Attention in fixed 8 s windows: a growing streaming window re-encodes only the changed ones."""
        return EncoderCache(self)

    def features(self, wave: np.ndarray) -> mx.array:
        """Waveform (16 kHz) -> the encoder's input: log-mel [frames, n_mels] in the model's dtype."""
        return log_mel_spectrogram(wave).astype(self.dtype)

    def encode(self, mel: mx.array) -> mx.array:
        """Log-mel [frames, n_mels] -> audio features [n_audio_tokens, hidden]."""
        return self.audio_tower(mel)

    def encode_many(self, features: Sequence[mx.array]) -> list[mx.array]:
        """Several clips' features through the encoder in one pass, each as `encode` alone gives it."""
        return self.audio_tower.encode_many(list(features))

    def prompt_ids(
        self, n_audio: int, context: str = "", language: Optional[str] = None, hotwords: Sequence[str] = ()
    ) -> list[int]:
        """The official prompt around n_audio audio pads (prompt.py); Qwen3-ASR has no hotword slot, so
        hotwords join the context as one comma-separated line."""
        return build_prompt(self.tokenizer, n_audio, prompt_context(context, hotwords), language)

    def sanitize(self, weights: dict[str, mx.array]) -> dict[str, mx.array]:
        """Checkpoint tensors (official names, torch layout) -> this module's names and layout."""
        return sanitize_weights(weights, self.args.text.tie_word_embeddings)


Model = Qwen3ASR  # what the registry (families/registry.py) builds for this folder
