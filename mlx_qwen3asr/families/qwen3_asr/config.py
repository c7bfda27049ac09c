"""Qwen3-ASR's configuration read from a checkpoint's config.json (the only source of sizes).

Three config.json shapes are accepted and normalised into one `ModelArgs`:
  official Qwen3-ASR   {"thinker_config": {"audio_config": ..., "text_config": ..., "audio_token_id": ...}}
  transformers "-hf"   {"audio_config": ..., "text_config": ..., "audio_token_id": ...}  (flattened)
  converted MLX folder the official shape, plus a top-level "quantization" entry
"""

from dataclasses import dataclass, field
from typing import Any, Optional

from ...layers.config import BaseArgs, TextArgs
from ...text.jsonfile import REDOWNLOAD


def conv_stem_length(n: int) -> int:
    """Length of a dimension after the conv stem's three 3x3, stride-2, padding-1 convolutions:
    ceil(ceil(ceil(n / 2) / 2) / 2). 100 mel frames -> 13 tokens; 128 mel bins -> 16."""
    for _ in range(3):
        n = (n - 1) // 2 + 1
    return n


@dataclass
class AudioArgs(BaseArgs):
    d_model: int
    encoder_layers: int
    encoder_attention_heads: int
    encoder_ffn_dim: int
    output_dim: int
    downsample_hidden_size: int
    num_mel_bins: int = 128
    n_window: int = 50
    n_window_infer: int = 800
    max_source_positions: int = 1500
    activation_function: str = "gelu"

    @property
    def chunk_frames(self) -> int:
        """Mel frames per conv-stem chunk (100 for the real checkpoints)."""
        return 2 * self.n_window

    @property
    def tokens_per_chunk(self) -> int:
        """Tokens a full chunk yields after the conv stem: 13 for 100 frames."""
        return conv_stem_length(self.chunk_frames)

    @property
    def window_frames(self) -> int:
        """Mel frames per encoder attention window: 100 * (800 // 100) = 800 for the real checkpoints."""
        return self.chunk_frames * (self.n_window_infer // self.chunk_frames)

    @property
    def attention_window(self) -> int:
        """Tokens per encoder attention window: 13 * (800 // 100) = 104 for the real checkpoints."""
        return self.tokens_per_chunk * (self.window_frames // self.chunk_frames)


@dataclass
class ModelArgs:
    audio: AudioArgs
    text: TextArgs
    audio_token_id: int = 151676
    audio_start_token_id: int = 151669
    audio_end_token_id: int = 151670
    support_languages: list[str] = field(default_factory=list)
    quantization: Optional[dict[str, Any]] = None

    @classmethod
    def from_dict(cls, config: dict[str, Any]) -> "ModelArgs":
        thinker = config.get("thinker_config", config)
        if "audio_config" not in thinker or "text_config" not in thinker:
            raise ValueError(
                "config.json has no audio_config/text_config (neither under thinker_config nor at the top "
                "level): this is not a Qwen3-ASR checkpoint"
            )
        prefix = "thinker_config." if "thinker_config" in config else ""
        token_ids = {}
        for k in ("audio_token_id", "audio_start_token_id", "audio_end_token_id"):
            if thinker.get(k) is not None:
                if not isinstance(thinker[k], int) or isinstance(thinker[k], bool):
                    raise ValueError(f"{prefix}{k} must be an integer, got {thinker[k]!r}: correct it, or {REDOWNLOAD}")
                token_ids[k] = thinker[k]
        return cls(
            audio=AudioArgs.from_dict(thinker["audio_config"], prefix + "audio_config"),
            text=TextArgs.from_dict(thinker["text_config"], prefix + "text_config"),
            support_languages=list(config.get("support_languages", [])),
            quantization=config.get("quantization"),
            **token_ids,
        )
