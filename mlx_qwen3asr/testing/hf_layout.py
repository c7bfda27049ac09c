"""The transformers-native "-hf" layout of a random checkpoint (model ids like Qwen/Qwen3-ASR-0.6B-hf)."""

import dataclasses

from ..families.qwen3_asr.layout import hf_name
from .tensors import TensorSpec

# Source: transformers 5.23.0 from PyPI, models/qwen3_asr/{modeling,configuration}_qwen3_asr.py, and
# the converter src/transformers/models/qwen3_asr/convert_qwen3_asr_to_hf.py (commit 060988b6, not in
# the wheel). That converter run with 5.23.0 on an official folder writes byte-identical files:
#   weights: thinker.model.* -> model.language_model.*, thinker.audio_tower.proj1/proj2 ->
#     model.multi_modal_projector.linear_1/linear_2, other thinker.audio_tower.* -> model.audio_tower.*;
#     no lm_head.weight (tied to the embeddings; save_pretrained drops it); same shapes and torch layouts.
#   config.json: flat, audio_config (model_type qwen3_asr_encoder, max_position_embeddings 13, no
#     num_hidden_layers / max_source_positions, + num_key_value_heads) and text_config (model_type qwen3,
#     rope_parameters instead of rope_scaling + rope_theta) at top level, keys sorted.
# Files saved by older 5.x versions lack text_config.layer_types. The "-hf" tokenizer side (tokenizer.json, processor_config.json,
# chat_template.jinja) is not reproduced: the same vocab.json/merges.txt files are copied instead.
HF_GENERATION_CONFIG = {
    "do_sample": False,
    "eos_token_id": [151643, 151645],
    "max_new_tokens": 512,
    "pad_token_id": 151645,
    "transformers_version": "5.23.0",
}
HF_AUDIO_KEYS = (
    "activation_dropout",
    "activation_function",
    "attention_dropout",
    "conv_chunksize",
    "d_model",
    "downsample_hidden_size",
    "dropout",
    "encoder_attention_heads",
    "encoder_ffn_dim",
    "encoder_layers",
    "initializer_range",
    "n_window",
    "n_window_infer",
    "num_mel_bins",
    "output_dim",
    "scale_embedding",
)
HF_TEXT_KEYS = (
    "attention_bias",
    "attention_dropout",
    "bos_token_id",
    "eos_token_id",
    "head_dim",
    "hidden_act",
    "hidden_size",
    "initializer_range",
    "intermediate_size",
    "max_position_embeddings",
    "num_attention_heads",
    "num_hidden_layers",
    "num_key_value_heads",
    "pad_token_id",
    "rms_norm_eps",
    "tie_word_embeddings",
    "use_cache",
    "vocab_size",
)


def hf_specs(specs: list[TensorSpec]) -> list[TensorSpec]:
    """Renamed, same values (seed_key stays the official name), in the -hf module order."""
    renamed = [
        dataclasses.replace(s, name=hf_name(s.name), seed_key=s.seed_key or s.name)
        for s in specs
        if s.name != "thinker.lm_head.weight"
    ]
    order = ("model.audio_tower.", "model.language_model.", "model.multi_modal_projector.")
    return sorted(renamed, key=lambda s: [s.name.startswith(p) for p in order].index(True))


def hf_config(config: dict) -> dict:
    """The flattened config.json that transformers 5.23 writes for the given official config."""
    thinker = config["thinker_config"]
    audio = {k: thinker["audio_config"][k] for k in HF_AUDIO_KEYS}
    audio.update(
        max_position_embeddings=13,  # sinusoid table length: 13 tokens per 100-frame chunk
        model_type="qwen3_asr_encoder",
        num_key_value_heads=audio["encoder_attention_heads"],
    )
    src = thinker["text_config"]
    text = {k: src[k] for k in HF_TEXT_KEYS}
    text.update(
        layer_types=["full_attention"] * src["num_hidden_layers"],
        max_window_layers=28,  # Qwen3Config default; unused without sliding windows
        model_type="qwen3",
        rope_parameters={"rope_theta": src["rope_theta"], "rope_type": "default"},
        sliding_window=None,
        use_sliding_window=False,
    )
    return {
        "architectures": ["Qwen3ASRForConditionalGeneration"],
        "audio_config": dict(sorted(audio.items())),
        "audio_token_id": thinker["audio_token_id"],
        "dtype": "bfloat16",
        "eos_token_id": [151643, 151645],
        "initializer_range": thinker["initializer_range"],
        "model_type": "qwen3_asr",
        "pad_token_id": 151645,
        "text_config": dict(sorted(text.items())),
        "tie_word_embeddings": True,
        "timestamp_token_id": 151705,
        "token_classification_bias": False,
        "transformers_version": "5.23.0",
    }
