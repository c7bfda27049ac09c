"""Fun-ASR-Nano configuration read from the transformers "-hf" config.json (the only source of sizes).

    {"model_type": "fun_asr_nano", "audio_config": {...SAN-M encoder...}, "adaptor_config": {...},
     "text_config": {...Qwen3...}, "audio_token_id": 151646, ["quantization": {...}]}

The text decoder is plain Qwen3 and reuses Qwen3-ASR's `TextArgs`; transformers 5 writes its RoPE base
as `rope_parameters.rope_theta`, read here into `rope_theta`.
"""

from dataclasses import dataclass
from typing import Any, Optional

from ...layers.config import BaseArgs, TextArgs
from ...layers.sanm import EncoderArgs
from ...text.jsonfile import REDOWNLOAD


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
