"""Qwen3-ASR: the audio encoder's output spliced into the decoder's prompt embeddings.

    mel [frames, 128] -> audio_tower -> audio features [n_audio, hidden]
    prompt ids [L] (n_audio x <|audio_pad|> inside) -> embed_tokens -> pads replaced by the features
    -> decoder (+ KV cache) -> hidden [1, L, hidden] -> tied LM head -> logits

Module names are the checkpoint names with the `thinker.` prefix removed, so loading is a rename.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ..audio.features import log_mel_spectrogram
from ..tokenizer import build_prompt, parse_output
from .cache import KVCache
from .config import ModelArgs
from .decoder import TextModel
from .encoder import AudioEncoder
from .step import DecodeStep

if TYPE_CHECKING:
    from ..tokenizer import Tokenizer


class Qwen3ASR(nn.Module):
    tokenizer_split_pattern: Optional[str] = None  # the tokenizer's own (Qwen2) split regex
    keep_float: tuple[str, ...] = ()  # module paths the converter never quantizes
    windowed_encoder = True  # attention in fixed windows: streaming re-encodes only changed ones (EncoderCache)

    def __init__(self, args: ModelArgs):
        super().__init__()
        self.args = args
        self.audio_tower = AudioEncoder(args.audio)
        self.model = TextModel(args.text)
        if not args.text.tie_word_embeddings:
            self.lm_head = nn.Linear(args.text.hidden_size, args.text.vocab_size, bias=False)
        self.tokenizer: Optional[Tokenizer] = None  # set by load(): the checkpoint's tokenizer
        self.path: Optional[Path] = None  # set by load(): the folder the weights came from
        self._decode_step: Optional[DecodeStep] = None  # compiled on first use (it holds the weights)

    @property
    def dtype(self) -> mx.Dtype:
        return self.audio_tower.ln_post.weight.dtype

    def features(self, wave: np.ndarray) -> mx.array:
        """Waveform (16 kHz) -> the encoder's input: log-mel [frames, n_mels] in the model's dtype."""
        return log_mel_spectrogram(wave).astype(self.dtype)

    def encode(self, mel: mx.array) -> mx.array:
        """Log-mel [frames, n_mels] -> audio features [n_audio_tokens, hidden]."""
        return self.audio_tower(mel)

    def encode_many(self, features: list[mx.array]) -> list[mx.array]:
        """Several clips' features through the encoder in one pass, each as `encode` alone gives it."""
        return self.audio_tower.encode_many(features)

    def prompt_ids(self, n_audio: int, context: str = "", language: Optional[str] = None) -> list[int]:
        """The official prompt around n_audio audio pads (tokenizer.build_prompt)."""
        return build_prompt(self.tokenizer, n_audio, context, language)

    def prompt_parts(self, context: str = "", language: Optional[str] = None) -> tuple[list[int], list[int]]:
        """The prompt's ids before its audio pads (the head: the same for every audio with this context
        and language; prefix_cache.py keeps its keys and values) and after them (the tail)."""
        ids = self.prompt_ids(1, context, language)
        pad = ids.index(self.args.audio_token_id)
        return ids[:pad], ids[pad + 1 :]

    def parse_output(self, raw: str, forced_language: Optional[str] = None) -> tuple[str, str]:
        """(language, text) of a decoded answer "language X<asr_text>text" (tokenizer.parse_output)."""
        return parse_output(raw, forced_language)

    def embed(self, prompt_ids: mx.array, audio_features: Optional[mx.array] = None) -> mx.array:
        """Prompt ids [L] -> embeddings [1, L, hidden], each <|audio_pad|> taking the next audio feature."""
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
        """Hidden states -> logits (the tied embedding as the LM head, unless the checkpoint has its own)."""
        if self.args.text.tie_word_embeddings:
            return self.model.embed_tokens.as_linear(hidden)
        return self.lm_head(hidden)

    def __call__(self, embeddings: mx.array, cache: Optional[list[KVCache]] = None, last_only: bool = True) -> mx.array:
        """Embeddings [1, L, hidden] -> logits [1, 1 or L, vocab] (only the last position by default)."""
        return self.logits(self.model(embeddings, cache, last_only))

    def decode_step(self) -> DecodeStep:
        """The compiled one-token step on a one-row cache (made on first use; model/step.py). The
        decode loop calls it for one row; prompts and batches run through __call__."""
        if self._decode_step is None:
            self._decode_step = DecodeStep(self)
        return self._decode_step

    def make_cache(self) -> list[KVCache]:
        return [KVCache() for _ in self.model.layers]

    def sanitize(self, weights: dict[str, mx.array]) -> dict[str, mx.array]:
        """Checkpoint tensors (official names, torch layout) -> this module's names and layout.

        Idempotent: conv weights are transposed only while still in torch's [out, in, kh, kw] layout.
        """
        out = {}
        for name, value in weights.items():
            name = name.removeprefix("thinker.")
            if name == "lm_head.weight" and self.args.text.tie_word_embeddings:
                continue  # a copy of embed_tokens in the official checkpoint
            if name.startswith("audio_tower.conv2d") and name.endswith(".weight") and value.shape[1] != 3:
                value = value.transpose(0, 2, 3, 1)
            out[name] = value
        return out


def encode_audio(model: Qwen3ASR, wave: np.ndarray) -> mx.array:
    """Waveform -> the model's features of the whole clip -> audio features [n_audio_tokens, hidden]."""
    return model.encode(model.features(wave))


def encode_audios(model: Qwen3ASR, waves: list[np.ndarray]) -> list[mx.array]:
    """Several waveforms through the encoder in one pass, each exactly as `encode_audio` alone gives it
    (each clip's features are computed on their own: the mel clamps to its own clip's maximum)."""
    return model.encode_many([model.features(wave) for wave in waves])
