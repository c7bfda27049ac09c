"""Fun-ASR-Nano: the SAN-M encoder and adaptor's audio embeddings spliced into OUR Qwen3 decoder.

    wave -> features (frontend.py) [T, 560] -> audio_tower (encoder.py) [T, 512]
    -> multi_modal_projector (adaptor.py) [T, 1024] = audio embeddings, one per LFR frame
    prompt ids (prompt.py: T x <|object_ref_start|> inside) -> embed_tokens -> placeholders replaced
    -> Qwen3 decoder (mlx_qwen3asr.model.decoder.TextModel, + KV cache) -> tied LM head -> logits

Everything from the prompt embeddings on is Qwen3-ASR's, unchanged: this class is a Qwen3ASR whose
audio path (features, encode, prompt, answer parsing) is Fun-ASR-Nano's, so the decode loop,
batching, streaming, CLI, app and server drive it through the same methods. Module names are the
"-hf" checkpoint names without `model.` (`model.language_model.` -> `model.`), so loading is a rename.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ..model.decoder import TextModel
from ..model.model import Qwen3ASR
from .adaptor import Adaptor
from .config import FunAsrNanoArgs
from .encoder import AudioEncoder
from .frontend import features as lfr_features
from .prompt import build_prompt


class FunAsrNano(Qwen3ASR):
    windowed_encoder = False  # attention spans the whole clip: no per-window encoder cache when streaming

    def __init__(self, args: FunAsrNanoArgs):
        nn.Module.__init__(self)  # not Qwen3ASR.__init__: another audio path, the same decoder side
        self.args = args
        self.audio_tower = AudioEncoder(args.audio)
        self.multi_modal_projector = Adaptor(args.audio.hidden_size, args.adaptor)
        self.model = TextModel(args.text)
        if not args.text.tie_word_embeddings:
            self.lm_head = nn.Linear(args.text.hidden_size, args.text.vocab_size, bias=False)
        self.tokenizer = None  # set by load()
        self.path: Optional[Path] = None
        self._decode_step = None

    @property
    def dtype(self) -> mx.Dtype:
        return self.model.norm.weight.dtype

    def features(self, wave: np.ndarray) -> mx.array:
        """Waveform (16 kHz) -> LFR fbank features [T, 560] in the model's dtype."""
        return lfr_features(wave).astype(self.dtype)

    def encode(self, features: mx.array) -> mx.array:
        """Features [T, 560] -> audio embeddings [T, hidden] (encoder, then adaptor)."""
        return self.multi_modal_projector(self.audio_tower(features[None]))[0]

    def encode_many(self, features: Sequence[mx.array]) -> list[mx.array]:
        """Each clip encoded on its own (exactly what `encode` gives it alone; no padding to mask)."""
        return [self.encode(f) for f in features]

    def prompt_ids(
        self, n_audio: int, context: str = "", language: Optional[str] = None, keywords: Sequence[str] = ()
    ) -> list[int]:
        """The official processor's prompt (prompt.py): `context` is its `prompt`, `keywords` its hotwords."""
        return build_prompt(self.tokenizer, n_audio, context, language, keywords)

    def parse_output(self, raw: str, forced_language: Optional[str] = None) -> tuple[str, str]:
        """(language, text): the answer is the bare transcript; the language is the forced one, else unknown.
        No clean-up: the official returns the decoded text as it is."""
        text = raw.strip() if raw else ""
        return (forced_language or "") if text else "", text

    def sanitize(self, weights: dict[str, mx.array]) -> dict[str, mx.array]:
        """ "-hf" names -> module names; the FSMN conv from torch's [C, 1, K] to MLX's [C, K, 1] (idempotent);
        a stored tied lm_head dropped."""
        out = {}
        for name, value in weights.items():
            if name.startswith("model.language_model."):
                name = "model." + name.removeprefix("model.language_model.")
            elif name.startswith(("model.audio_tower.", "model.multi_modal_projector.")):
                name = name.removeprefix("model.")
            if name == "lm_head.weight" and self.args.text.tie_word_embeddings:
                continue
            if name.endswith("fsmn.conv.weight") and value.ndim == 3 and value.shape[1] == 1 and value.shape[2] > 1:
                value = value.transpose(0, 2, 1)
            out[name] = value
        return out
