"""Random-weight Fun-ASR-Nano checkpoints in the transformers "-hf" layout (numpy only, like
random_checkpoint.py: the dev-only golden script runs it in the torch environment).

    config dict (the real "-hf" config.json, or tiny_funasr_config())
      -> funasr_specs(config): the tensors of FunAsrNanoForConditionalGeneration, in module order
         (encoder, decoder, adaptor; no tied lm_head: save_pretrained drops it)
      -> model.safetensors (bf16, {"format": "pt"}) + config.json + the processor/tokenizer files
         (families/fun_asr_nano/hf/; tokenizer.json rebuilt from its template + Qwen3's vocab.json / merges.txt, the
         same bytes as ../qwen3-asr-0.6b's)

Scales keep activations O(1) so that greedy decoding varies with the audio and the prompt: He-like
std before each ReLU, small residual-branch outputs (o_proj, fc2: 0.5 / sqrt(fan_in); the adaptor's
0.15 / sqrt(fan_in), else the residual stream grows a component shared by all frames and the
embeddings of a long clip become alike), norms 1 + N(0, 0.1); the decoder's are Qwen3-ASR's
(random_checkpoint.py: zero-mean final norm against the tied head's self-similarity).
"""

import copy
import dataclasses
import json
import shutil
from pathlib import Path
from typing import Optional, Union

import numpy as np

from ..families.fun_asr_nano.release import COPIED_FILES, RELEASE_DIR, release_config, write_tokenizer_json
from .random_checkpoint import FIXTURES_DIR as QWEN3_FILES_DIR
from .random_checkpoint import TINY_TEXT, _linear, _norm, _text_specs  # the same tiny decoder as Qwen3-ASR's
from .tensors import TensorSpec, write_safetensors

TINY_ENCODER = {
    "hidden_size": 64,
    "num_hidden_layers": 4,
    "num_timestamp_prediction_layers": 2,  # final norms on layers 1 and 3 (real: 49 and 69)
    "num_attention_heads": 4,
    "intermediate_size": 128,
}
TINY_ADAPTOR = {"hidden_size": 64, "intermediate_size": 16, "num_attention_heads": 4, "projector_hidden_size": 128}
PathLike = Union[str, Path]


def real_funasr_config() -> dict:
    """The Fun-ASR-Nano-2512 "-hf" config.json (mlx_qwen3asr/families/fun_asr_nano/hf/config.json)."""
    return release_config()


def tiny_funasr_config() -> dict:
    """The real config with the layer sizes shrunk (vocabulary, ids, front end and kernel kept)."""
    config = real_funasr_config()
    config["audio_config"].update(TINY_ENCODER)
    config["adaptor_config"].update(TINY_ADAPTOR)
    config["text_config"].update(TINY_TEXT)
    config["text_config"]["layer_types"] = ["full_attention"] * TINY_TEXT["num_hidden_layers"]
    return config


def _block(prefix: str, in_dim: int, dim: int, hidden: int, out_gain: float, fsmn_kernel: int = 0) -> list[TensorSpec]:
    """One pre-LayerNorm block (encoder or adaptor layer) in the official module order."""
    specs = []
    for proj in ("q_proj", "k_proj", "v_proj"):
        specs += _linear(f"{prefix}.self_attn.{proj}", dim, in_dim, bias=True)
    specs += _linear(f"{prefix}.self_attn.o_proj", dim, dim, bias=True, gain=out_gain)
    if fsmn_kernel:  # depthwise conv [dim, 1, K], torch layout
        specs.append(
            TensorSpec(f"{prefix}.self_attn.fsmn.conv.weight", (dim, 1, fsmn_kernel), 0.5 / np.sqrt(fsmn_kernel))
        )
    specs += _linear(f"{prefix}.mlp.fc1", hidden, dim, bias=True, gain=np.sqrt(2.0))
    specs += _linear(f"{prefix}.mlp.fc2", dim, hidden, bias=True, gain=out_gain)
    return (
        specs
        + _norm(f"{prefix}.input_layernorm", in_dim, bias=True)
        + _norm(f"{prefix}.post_attention_layernorm", dim, bias=True)
    )


def funasr_specs(config: dict) -> list[TensorSpec]:
    """All tensors of the "-hf" checkpoint, in FunAsrNanoForConditionalGeneration's module order."""
    audio, adaptor, text = config["audio_config"], config["adaptor_config"], config["text_config"]
    d, stacked = audio["hidden_size"], audio["num_mel_bins"] * audio["num_stacked_frames"]
    layers = audio["num_hidden_layers"]
    normed = (layers - audio["num_timestamp_prediction_layers"] - 1, layers - 1)
    specs = []
    for i in range(layers):
        p = f"model.audio_tower.layers.{i}"
        specs += _block(p, stacked if i == 0 else d, d, audio["intermediate_size"], 0.5, audio["fsmn_kernel_size"])
        specs += _norm(f"{p}.final_layernorm", d, bias=True) if i in normed else []
    decoder = [s for s in _text_specs(text) if s.name != "thinker.lm_head.weight"]
    specs += [dataclasses.replace(s, name=s.name.replace("thinker.model.", "model.language_model.")) for s in decoder]
    h = adaptor["hidden_size"]
    p = "model.multi_modal_projector"
    specs += _linear(f"{p}.linear_1", adaptor["projector_hidden_size"], d, bias=True, gain=np.sqrt(2.0))
    specs += _linear(f"{p}.linear_2", h, adaptor["projector_hidden_size"], bias=True)
    for i in range(adaptor["num_hidden_layers"]):
        specs += _block(f"{p}.layers.{i}", h, h, adaptor["intermediate_size"], 0.15)
    return specs


def write_random_funasr(out_dir: PathLike, config: Optional[dict] = None, *, seed: int = 0) -> Path:
    """Write a bf16 random Fun-ASR-Nano folder that transformers' `from_pretrained` and `AutoProcessor`
    load (default: tiny_funasr_config()); returns the folder."""
    config = copy.deepcopy(config) if config is not None else tiny_funasr_config()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name in COPIED_FILES:
        shutil.copyfile(RELEASE_DIR / name, out / name)
    write_tokenizer_json(out, QWEN3_FILES_DIR)
    (out / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    write_safetensors(out / "model.safetensors", funasr_specs(config), seed)
    return out
