"""Qwen3-ForcedAligner: the ASR network with a classifier head, one forward, no generation.

    mel [frames, 128] -> audio_tower (windowed, or full attention like the official wrapper)
                                                                   -> audio features [n_audio, hidden]
    prompt ids [L]: <|audio_start|> n_audio x <|audio_pad|> <|audio_end|> (unit <timestamp> <timestamp>)...
    -> embed + splice (families/speech_lm.py) -> causal Qwen3 decoder -> hidden [L, hidden]
    -> hidden at the <timestamp> positions [2 x units] -> lm_head [classify_num = 5000] -> argmax classes
    (class x timestamp_segment_time = 80 ms; repair.py makes the times monotonic)

What differs from the ASR checkpoint is all in config.json: `thinker_config.classify_num` (the head is an
untied [classify_num, hidden] `lm_head`, not the vocabulary), `timestamp_token_id`, `timestamp_segment_time`,
and the sizes (the 1.7B ASR encoder's shape with the 0.6B decoder's).

Encoder attention: the model was trained with attention inside windows of 104 tokens (8 s), as our ASR
encoder does. The official wrapper on CPU (sdpa/eager) calls the encoder layers without a mask, so every
audio token attends to all others; the two differ on clips longer than 8 s. `full_attention=True`
reproduces the official wrapper.

Loading goes through `mq.load`, which builds this class when config.json's model_type says
`qwen3_forced_aligner`.
"""

import dataclasses
from typing import Any

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ..qwen3_asr.config import ModelArgs as Qwen3ASRArgs
from ..qwen3_asr.encoder import AudioEncoder, clip_windows
from ..qwen3_asr.gpu import install as install_gpu_encoder
from ..qwen3_asr.model import CONV_STEM, checkpoint_names, sanitize_weights
from ..qwen3_asr.two_streams import CPU_SWAPS
from ..speech_lm import SpeechLM

# The split the official processors really use: they load with fix_mistral_regex=True, and transformers
# 4.57.6 then (config.json says transformers_version 4.57.6) swaps in Mistral's regex, which also splits
# at lower-to-upper case changes: `iPhone` -> `i|Phone`, `GitHub` -> `Git|Hub`. The aligner encodes its
# units with it, so that its prompts are the official ones (tests/fixtures/aligner, "mixed" case).
MISTRAL_SPLIT_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
    r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


@dataclasses.dataclass
class AlignerArgs(Qwen3ASRArgs):
    classify_num: int = 5000
    timestamp_token_id: int = 151705
    timestamp_segment_time: float = 80.0  # ms per class

    @classmethod
    def from_dict(cls, config: dict[str, Any]) -> "AlignerArgs":
        thinker = config.get("thinker_config", config)
        if "classify_num" not in thinker:
            raise ValueError(
                "config.json has no classify_num: this is not a Qwen3-ForcedAligner checkpoint "
                "(model_type qwen3_forced_aligner)"
            )
        base = Qwen3ASRArgs.from_dict(config)
        return cls(
            **{f.name: getattr(base, f.name) for f in dataclasses.fields(Qwen3ASRArgs)},
            classify_num=thinker["classify_num"],
            timestamp_token_id=config.get("timestamp_token_id", cls.timestamp_token_id),
            timestamp_segment_time=float(config.get("timestamp_segment_time", cls.timestamp_segment_time)),
        )


def prompt_ids(unit_ids: list[list[int]], n_audio_tokens: int, args: AlignerArgs) -> list[int]:
    """The official prompt, no chat template: the audio block, then each unit's token ids followed by
    two <timestamp> tokens (its start and end). With no unit the official text still ends in one pair."""
    ids = [args.audio_start_token_id, *[args.audio_token_id] * n_audio_tokens, args.audio_end_token_id]
    pair = [args.timestamp_token_id] * 2
    for unit in unit_ids:
        ids += [*unit, *pair]
    return ids if unit_ids else ids + pair


class ForcedAligner(SpeechLM):
    """Qwen3-ASR's encoder and the Qwen3 decoder, with a head of classify_num rows (its `logits` are
    timestamp classes: it aligns, it does not decode)."""

    task = "align"
    tokenizer_split_pattern = MISTRAL_SPLIT_PATTERN  # as the official processor: `iPhone` -> `i|Phone`
    # The classifier head stays float in conversions: its argmax IS the timestamp, neighbouring 80 ms
    # classes can be close, and at [5000, 1024] it is ~1% of the weights, so quantizing saves little.
    keep_float = (*CONV_STEM, "lm_head")
    cpu_swaps = CPU_SWAPS  # Qwen3-ASR's encoder on two streams
    gpu_installs = (install_gpu_encoder,)  # Qwen3-ASR's encoder's GPU path

    def __init__(self, args: AlignerArgs):
        super().__init__(args)  # its tokenizer knows <timestamp>
        self.audio_tower = AudioEncoder(args.audio)
        self.lm_head = nn.Linear(args.text.hidden_size, args.classify_num, bias=False)

    @property
    def dtype(self) -> mx.Dtype:
        return self.audio_tower.ln_post.weight.dtype

    def sanitize(self, weights: dict[str, mx.array]) -> dict[str, mx.array]:
        """Checkpoint tensors (official names, torch layout) -> module names and layout (as Qwen3-ASR's)."""
        return sanitize_weights(weights, self.args.text.tie_word_embeddings)

    def encode(self, mel: mx.array, full_attention: bool = False) -> mx.array:
        """Log-mel [frames, n_mels] -> audio features [n_audio_tokens, hidden]; windows of 104 tokens,
        or with `full_attention` one window holding every token (the official wrapper on CPU)."""
        tower = self.audio_tower
        x = tower.embed_chunks(mel.astype(self.dtype))
        return tower.encode_tokens(x, clip_windows(x.shape[0], x.shape[0]) if full_attention else None)

    def timestamp_logits(self, prompt_ids: mx.array, audio_features: mx.array) -> mx.array:
        """Prompt ids [L] + audio features -> class logits at each <timestamp> position [2 x units, classes].

        The logits AT a <timestamp> token are used (not those predicting the next token); the decoder is
        causal, so a unit's times see the audio and the text up to that unit only.
        """
        hidden = self.model(self.embed(prompt_ids, audio_features))[0]
        positions = np.flatnonzero(np.array(prompt_ids) == self.args.timestamp_token_id)
        return self.lm_head(hidden[mx.array(positions)])

    def timestamp_classes(self, prompt_ids: mx.array, audio_features: mx.array) -> list[int]:
        """The argmax class at each <timestamp> position (start, end, start, end, ...)."""
        return mx.argmax(self.timestamp_logits(prompt_ids, audio_features), axis=-1).tolist()


Model, ModelArgs = ForcedAligner, AlignerArgs  # what the registry (families/registry.py) builds for this folder
__all__ = ["AlignerArgs", "ForcedAligner", "Model", "ModelArgs", "checkpoint_names", "prompt_ids"]
