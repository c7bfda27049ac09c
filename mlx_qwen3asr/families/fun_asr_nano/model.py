"""Fun-ASR-Nano: the SAN-M encoder and adaptor's audio embeddings spliced into the shared Qwen3 decoder.

    wave -> features (frontend.py) [T, 560] -> audio_tower (encoder.py) [T, 512]
    -> multi_modal_projector (adaptor.py) [T, 1024] = audio embeddings, one per LFR frame
    prompt ids (prompt.py: T x <|object_ref_start|> inside) -> embed_tokens -> placeholders replaced
    -> Qwen3 decoder (families/speech_lm.py: TextModel, + KV cache) -> tied LM head -> logits

The decoder side is the component both recognisers hold (families/speech_lm.py); the audio path
(features, encode, prompt with its `keywords` hotword block, answer parsing) and the facts below are
Fun-ASR-Nano's. Module names are the "-hf" checkpoint names without `model.`
(`model.language_model.` -> `model.`), so loading is a rename.

One pass takes at most 2048 LFR frames (encoder max_position_embeddings - 1: 2048 x 60 ms = 122.88 s):
the official code runs any shorter clip whole, so that is the default chunk length here too.
"""

from collections.abc import Sequence
from typing import Optional

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ...audio.fbank import LFR_SECONDS
from ...audio.fbank import features as lfr_features
from ...layers.sanm import AudioEncoder
from ...layers.sanm_two_streams import SANM_CPU_SWAPS
from ...text.script import join_text
from ..speech_lm import SpeechLM
from . import original
from .adaptor import Adaptor
from .config import FunAsrNanoArgs
from .prompt import LANGUAGES, build_prompt


def checkpoint_names(weights: dict[str, mx.array]) -> dict[str, mx.array]:
    """The "-hf" names are the names sanitize takes: unchanged."""
    return dict(weights)


def parse_output(raw: str, forced_language: Optional[str] = None) -> tuple[str, str]:
    """(language, text): the answer is the bare transcript; the language is the forced one, else unknown.
    No clean-up: the official returns the decoded text as it is. Append-only as it stands, so it also
    reads a streaming window's answer so far."""
    text = raw.strip() if raw else ""
    return (forced_language or "") if text else "", text


class FunAsrNano(SpeechLM):
    task = "transcribe"
    languages = LANGUAGES
    # No documented limit of its own: Qwen3-ASR's, far within the decoder's positions.
    max_context_tokens = 10_000
    audio_prefixes = ("audio_tower.", "multi_modal_projector.")  # the adaptor at the encoder's bits too
    cpu_swaps = SANM_CPU_SWAPS  # the SAN-M audio tower on two CPU streams (layers/sanm_two_streams.py)

    def __init__(self, args: FunAsrNanoArgs):
        super().__init__(args)
        self.audio_tower = AudioEncoder(args.audio)
        self.multi_modal_projector = Adaptor(args.audio.hidden_size, args.adaptor)
        if not args.text.tie_word_embeddings:
            self.lm_head = nn.Linear(args.text.hidden_size, args.text.vocab_size, bias=False)

    parse_output = staticmethod(parse_output)
    parse_partial = staticmethod(parse_output)
    join_text = staticmethod(join_text)

    @property
    def dtype(self) -> mx.Dtype:
        return self.model.norm.weight.dtype

    @property
    def audio_tokens_per_second(self) -> float:
        """One audio embedding per LFR frame: 1 / 0.06 s."""
        return 1 / LFR_SECONDS

    @property
    def chunk_seconds(self) -> float:
        """The longest audio one pass takes: 2048 LFR frames (122.88 s) for the released checkpoint."""
        return self.args.audio.max_frames * LFR_SECONDS

    def encoder_cache(self) -> None:
        """None: attention spans the whole clip, so streaming re-encodes the window at each step."""
        return None

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
        self, n_audio: int, context: str = "", language: Optional[str] = None, hotwords: Sequence[str] = ()
    ) -> list[int]:
        """The official processor's prompt (prompt.py): `context` is its `prompt`, `hotwords` its `keywords`."""
        return build_prompt(self.tokenizer, n_audio, context, language, hotwords)

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


Model, ModelArgs = FunAsrNano, FunAsrNanoArgs  # what the registry (families/registry.py) builds for this folder
ORIGINAL = original  # the original FunASR release (model.pt): is_original(folder), hf_from_original(folder)
