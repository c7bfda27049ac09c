"""Fun-ASR-Nano configuration read from the transformers "-hf" config.json (the only source of sizes).

    {"model_type": "fun_asr_nano", "audio_config": {...SAN-M encoder...}, "adaptor_config": {...},
     "text_config": {...Qwen3...}, "audio_token_id": 151646, ["quantization": {...}]}

The text decoder is plain Qwen3 and reuses Qwen3-ASR's `TextArgs`; transformers 5 writes its RoPE base
as `rope_parameters.rope_theta`, read here into `rope_theta`.
"""

from dataclasses import dataclass
from typing import Any, Optional

from ..jsonfile import REDOWNLOAD
from ..model.config import BaseArgs, TextArgs


@dataclass
class EncoderArgs(BaseArgs):
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    num_mel_bins: int = 80
    num_stacked_frames: int = 7  # LFR: frames stacked per feature row (560 = 7 x 80 inputs)
    num_timestamp_prediction_layers: int = 20
    fsmn_kernel_size: int = 11
    max_position_embeddings: int = 2049  # sinusoid table rows; positions count from 1: <= 2048 frames
    layer_norm_eps: float = 1e-5
    hidden_act: str = "relu"

    @property
    def input_size(self) -> int:
        return self.num_mel_bins * self.num_stacked_frames

    @property
    def max_frames(self) -> int:
        """The most LFR frames one pass takes (2048, ~122.9 s): the official table has one row more."""
        return self.max_position_embeddings - 1

    @property
    def normed_layers(self) -> tuple[int, int]:
        """Layers that end with their own LayerNorm: the last transcription layer (49) and the last (69)."""
        transcription = self.num_hidden_layers - self.num_timestamp_prediction_layers
        return transcription - 1, self.num_hidden_layers - 1


@dataclass
class AdaptorArgs(BaseArgs):
    hidden_size: int
    num_attention_heads: int
    num_hidden_layers: int
    intermediate_size: int
    projector_hidden_size: int
    layer_norm_eps: float = 1e-5
    hidden_act: str = "relu"
    projector_hidden_act: str = "relu"


@dataclass
class FunAsrNanoArgs:
    audio: EncoderArgs
    adaptor: AdaptorArgs
    text: TextArgs
    audio_token_id: int = 151646  # <|object_ref_start|>: one per LFR frame in the prompt
    quantization: Optional[dict[str, Any]] = None

    @classmethod
    def from_dict(cls, config: dict[str, Any]) -> "FunAsrNanoArgs":
        for key in ("audio_config", "adaptor_config", "text_config"):
            if not isinstance(config.get(key), dict):
                raise ValueError(f"{key} is missing: {REDOWNLOAD}")
        text = dict(config["text_config"])
        rope = text.get("rope_parameters") or {}
        if text.get("rope_theta") is None and rope.get("rope_theta") is not None:
            text["rope_theta"] = rope["rope_theta"]
        token = config.get("audio_token_id", 151646)
        if not isinstance(token, int) or isinstance(token, bool):
            raise ValueError(f"audio_token_id must be an integer, got {token!r}: correct it, or {REDOWNLOAD}")
        args = cls(
            audio=EncoderArgs.from_dict(config["audio_config"], "audio_config"),
            adaptor=AdaptorArgs.from_dict(config["adaptor_config"], "adaptor_config"),
            text=TextArgs.from_dict(text, "text_config"),
            audio_token_id=token,
            quantization=config.get("quantization"),
        )
        if args.adaptor.hidden_size != args.text.hidden_size:
            raise ValueError(
                f"adaptor_config.hidden_size ({args.adaptor.hidden_size}) must equal text_config.hidden_size "
                f"({args.text.hidden_size}): {REDOWNLOAD}"
            )
        return args
