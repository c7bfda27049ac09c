"""Random-weight Qwen3-ASR checkpoints in the published Hugging Face layouts.

Used by tests, benchmarks and the dev-only golden script (which runs it in the torch environment:
the weights are written with numpy alone, tensor by tensor, in tensors.py).

    config dict (real config.json, or tiny_config())
      -> tensor_specs(config, layout)     [TensorSpec(name, shape, std, mean, seed_key)], module order
      -> plan_shards(specs, max bytes)    HF's greedy split, in module order
      -> per shard: header (names sorted) -> per tensor, in row blocks:
           rng(seed, crc32(seed_key)) -> uniform float32 -> bf16 bits -> file
      + config.json (official nested, or the flattened "-hf" one) and the tokenizer/processor files

Every tensor is drawn from its own stream keyed by its official name, so a tensor's values do not
depend on sharding, on the layout, or on which other tensors exist, and the tied `lm_head` copy is
bit-identical to the embeddings. Memory stays at one row block (~16 MB) whatever the model size.
"""

import copy
import dataclasses
import json
import shutil
from pathlib import Path
from typing import Optional, Union

import numpy as np

from ..families.qwen3_asr.config import conv_stem_length
from ..loading.layout import SIDE_FILES
from .hf_layout import HF_GENERATION_CONFIG, hf_config, hf_specs
from .tensors import TensorSpec, plan_shards, write_index, write_safetensors

FIXTURES_DIR = Path(__file__).resolve().parent / "qwen3-asr-0.6b"
# Copied verbatim next to the weights; config.json is written from the dict instead.
DATA_FILES = tuple(name for name in SIDE_FILES if name not in ("tokenizer.json", "processor_config.json"))
TINY_AUDIO = {
    "d_model": 64,
    "encoder_layers": 2,
    "num_hidden_layers": 2,  # a duplicate of encoder_layers in the upstream file
    "encoder_attention_heads": 4,
    "encoder_ffn_dim": 128,
    "downsample_hidden_size": 32,
    "output_dim": 64,
}
TINY_TEXT = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "intermediate_size": 128,
}
PathLike = Union[str, Path]


def tiny_config(fixtures_dir: Optional[PathLike] = None) -> dict:
    """The real Qwen3-ASR-0.6B config.json with only the layer sizes shrunk (vocab and ids kept)."""
    config = json.loads((Path(fixtures_dir or FIXTURES_DIR) / "config.json").read_text())
    thinker = config["thinker_config"]
    thinker["audio_config"].update(TINY_AUDIO)
    thinker["text_config"].update(TINY_TEXT)
    return config


def write_random_checkpoint(
    out_dir: PathLike,
    config: Optional[dict] = None,
    *,
    seed: int = 0,
    layout: str = "official",
    max_shard_bytes: Optional[int] = None,
    fixtures_dir: Optional[PathLike] = None,
) -> Path:
    """Write a bf16 random checkpoint folder loadable by the official code; returns the folder.

    config is an official (nested `thinker_config`) config.json dict, default `tiny_config()`.
    layout "official" writes the Qwen/Qwen3-ASR-* layout, "hf" the transformers-native "-hf" one.
    Above max_shard_bytes the weights are split into model-0000i-of-0000N.safetensors + index.
    """
    fixtures = Path(fixtures_dir or FIXTURES_DIR)
    config = copy.deepcopy(config) if config is not None else tiny_config(fixtures)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name in DATA_FILES:
        shutil.copyfile(fixtures / name, out / name)
    if layout == "hf":
        _write_json(out / "generation_config.json", HF_GENERATION_CONFIG)
    _write_json(out / "config.json", hf_config(config) if layout == "hf" else config)
    specs = tensor_specs(config, layout)
    shards = plan_shards(specs, max_shard_bytes)
    if len(shards) == 1:
        write_safetensors(out / "model.safetensors", shards[0], seed)
        return out
    names = [f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors" for i in range(len(shards))]
    for name, shard in zip(names, shards):
        write_safetensors(out / name, shard, seed)
    write_index(out, names, shards)
    return out


def write_listening_checkpoint(folder: PathLike, seed: int = 0) -> Path:
    """The tiny checkpoint whose (still meaningless) text changes with the audio: the plain random model says the
    same thing whatever it hears, so "X equals transcribe's" would hold even with wrong boundaries. The audio
    projection (x100) and the decoder's attention values and outputs (x10) are scaled up."""
    import mlx.core as mx  # the gains are applied to the written file

    folder = write_random_checkpoint(folder, tiny_config(), seed=seed)
    weights = mx.load(str(folder / "model.safetensors"))
    for name, value in weights.items():
        scale = 100.0 if name.startswith("thinker.audio_tower.proj2") else 1.0
        if name.startswith("thinker.model.layers") and (".o_proj." in name or ".v_proj." in name):
            scale = 10.0
        if scale != 1.0:
            weights[name] = (value.astype(mx.float32) * scale).astype(value.dtype)
    mx.save_safetensors(str(folder / "model.safetensors"), weights, metadata={"format": "pt"})
    return folder


def tensor_specs(config: dict, layout: str = "official") -> list[TensorSpec]:
    """All tensors of a checkpoint, in the model's module (state_dict) order."""
    thinker = config["thinker_config"]
    specs = _audio_specs(thinker["audio_config"]) + _text_specs(thinker["text_config"])
    if layout == "official":
        return specs
    if layout == "hf":
        return hf_specs(specs)
    raise ValueError(f"unknown layout {layout!r}: use 'official' or 'hf'")


def _linear(prefix: str, n_out: int, n_in: int, bias: bool, gain: float = 1.0) -> list[TensorSpec]:
    specs = [TensorSpec(f"{prefix}.weight", (n_out, n_in), gain / np.sqrt(n_in))]
    return specs + ([TensorSpec(f"{prefix}.bias", (n_out,), 0.02)] if bias else [])


def _norm(prefix: str, dim: int, bias: bool) -> list[TensorSpec]:
    specs = [TensorSpec(f"{prefix}.weight", (dim,), 0.1, mean=1.0)]
    return specs + ([TensorSpec(f"{prefix}.bias", (dim,), 0.02)] if bias else [])


def _conv(prefix: str, c_out: int, c_in: int) -> list[TensorSpec]:
    """torch Conv2d layout [out, in, kh, kw]."""
    weight = TensorSpec(f"{prefix}.weight", (c_out, c_in, 3, 3), 1.0 / np.sqrt(9 * c_in))
    return [weight, TensorSpec(f"{prefix}.bias", (c_out,), 0.02)]


def _audio_specs(audio: dict) -> list[TensorSpec]:
    d, ffn, c = audio["d_model"], audio["encoder_ffn_dim"], audio["downsample_hidden_size"]
    freq = conv_stem_length(audio["num_mel_bins"])  # 128 mel bins -> 16 after 3 convs
    specs = []
    for i in range(audio["encoder_layers"]):
        p = f"thinker.audio_tower.layers.{i}"
        for proj in ("k_proj", "v_proj", "q_proj", "out_proj"):
            specs += _linear(f"{p}.self_attn.{proj}", d, d, bias=True)
        specs += _norm(f"{p}.self_attn_layer_norm", d, bias=True)
        specs += _linear(f"{p}.fc1", ffn, d, bias=True) + _linear(f"{p}.fc2", d, ffn, bias=True)
        specs += _norm(f"{p}.final_layer_norm", d, bias=True)
    p = "thinker.audio_tower"
    specs += _norm(f"{p}.ln_post", d, bias=True)
    specs += _conv(f"{p}.conv2d1", c, 1) + _conv(f"{p}.conv2d2", c, c) + _conv(f"{p}.conv2d3", c, c)
    specs += _linear(f"{p}.conv_out", d, c * freq, bias=False)
    specs += _linear(f"{p}.proj1", d, d, bias=True)
    return specs + _linear(f"{p}.proj2", audio["output_dim"], d, bias=True)


def _text_specs(text: dict) -> list[TensorSpec]:
    """Decoder scales chosen so that greedy decoding varies yet is well conditioned (see below)."""
    h, ffn, hd = text["hidden_size"], text["intermediate_size"], text["head_dim"]
    n_q, n_kv = text["num_attention_heads"] * hd, text["num_key_value_heads"] * hd
    # Spread-out row norms make the top logits stand apart (min top1-top2 gap 0.03 vs 0.007 over
    # the goldens' 288 greedy steps); float32 vs float64 logits differ by ~1e-4.
    embed = TensorSpec("thinker.model.embed_tokens.weight", (text["vocab_size"], h), std=1.0, row_spread=0.15)
    specs = [embed]
    for i in range(text["num_hidden_layers"]):
        p = f"thinker.model.layers.{i}"
        specs += _linear(f"{p}.self_attn.q_proj", n_q, h, bias=False)
        specs += _linear(f"{p}.self_attn.k_proj", n_kv, h, bias=False)
        specs += _linear(f"{p}.self_attn.v_proj", n_kv, h, bias=False)
        # Residual-branch outputs at std 2/sqrt(hidden): layer outputs outweigh the input embedding,
        # which otherwise (tied head) makes every step repeat the previous token.
        specs += _linear(f"{p}.self_attn.o_proj", h, n_q, bias=False, gain=2.0 * np.sqrt(n_q / h))
        specs += _norm(f"{p}.self_attn.q_norm", hd, bias=False)
        specs += _norm(f"{p}.self_attn.k_norm", hd, bias=False)
        specs += _linear(f"{p}.mlp.gate_proj", ffn, h, bias=False)
        specs += _linear(f"{p}.mlp.up_proj", ffn, h, bias=False)
        specs += _linear(f"{p}.mlp.down_proj", h, ffn, bias=False, gain=2.0 * np.sqrt(ffn / h))
        specs += _norm(f"{p}.input_layernorm", h, bias=False)
        specs += _norm(f"{p}.post_attention_layernorm", h, bias=False)
    # Zero-mean final norm: removes the tied head's self-similarity bias (e.v @ e.v); std 4 puts
    # the logits' spread at ~30.
    specs.append(TensorSpec("thinker.model.norm.weight", (h,), 4.0))
    # The upstream checkpoint stores the tied head as a second copy of the embeddings.
    return specs + [dataclasses.replace(embed, name="thinker.lm_head.weight", seed_key=embed.name)]


def _write_json(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
