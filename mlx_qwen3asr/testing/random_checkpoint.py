"""Random-weight Qwen3-ASR checkpoints in the published Hugging Face layouts (numpy only).

Used by tests and by the dev-only golden script; it imports neither mlx nor torch, so it can be
loaded by file path from any environment.

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
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

import numpy as np

FIXTURES_DIR = Path(__file__).resolve().parent / "qwen3-asr-0.6b"
# Copied verbatim next to the weights; config.json is written from the dict instead.
DATA_FILES = (
    "generation_config.json",
    "preprocessor_config.json",
    "vocab.json",
    "merges.txt",
    "tokenizer_config.json",
    "chat_template.json",
)
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
BLOCK_ELEMENTS = 1 << 22  # rows are generated and written in blocks of about this many values
PathLike = Union[str, Path]


@dataclass(frozen=True)
class TensorSpec:
    """One checkpoint tensor: values uniform with this mean and std, from the stream seed_key."""

    name: str
    shape: tuple[int, ...]
    std: float
    mean: float = 0.0
    seed_key: str = ""
    row_spread: float = 0.0  # rows scaled by exp(row_spread * N(0, 1)), like real embedding norms

    @property
    def nbytes(self) -> int:
        return 2 * int(np.prod(self.shape))


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
    _write_index(out, names, shards)
    return out


def tensor_specs(config: dict, layout: str = "official") -> list[TensorSpec]:
    """All tensors of a checkpoint, in the model's module (state_dict) order."""
    thinker = config["thinker_config"]
    specs = _audio_specs(thinker["audio_config"]) + _text_specs(thinker["text_config"])
    if layout == "official":
        return specs
    if layout == "hf":
        return _hf_specs(specs)
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
    freq = (((audio["num_mel_bins"] + 1) // 2 + 1) // 2 + 1) // 2  # 128 mel bins -> 16 after 3 convs
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
    embed = TensorSpec(
        "thinker.model.embed_tokens.weight", (text["vocab_size"], h), std=1.0, row_spread=0.15
    )
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


def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16), rounded to nearest even like torch's cast."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    return rounded.astype(np.uint16)


def tensor_blocks(spec: TensorSpec, seed: int) -> Iterator[np.ndarray]:
    """The tensor's float32 values in blocks of whole rows (deterministic for a given seed)."""
    key = zlib.crc32((spec.seed_key or spec.name).encode())
    rng, row_rng = np.random.default_rng([seed, key]), np.random.default_rng([seed, key, 1])
    row_shape = spec.shape[1:]
    rows = max(1, BLOCK_ELEMENTS // max(1, int(np.prod(row_shape))))
    for start in range(0, spec.shape[0], rows):
        n = min(rows, spec.shape[0] - start)
        # uniform on mean +- sqrt(3) std: 7x faster to draw than normals, same conditioning
        half_width = np.sqrt(3) * spec.std
        block = rng.random((n, *row_shape), dtype=np.float32)
        block = block * np.float32(2 * half_width) + np.float32(spec.mean - half_width)
        if spec.row_spread:
            scale = np.exp(spec.row_spread * row_rng.standard_normal(n)).astype(np.float32)
            block *= scale.reshape(n, *([1] * len(row_shape)))
        yield block


def plan_shards(specs: list[TensorSpec], max_shard_bytes: Optional[int]) -> list[list[TensorSpec]]:
    """huggingface_hub's split: fill shards in module order; a tensor above the limit gets its own."""
    if max_shard_bytes is None:
        return [list(specs)]
    shards: list[list[TensorSpec]] = []
    current: list[TensorSpec] = []
    size = 0
    for spec in specs:
        if spec.nbytes > max_shard_bytes:
            shards.append([spec])  # appended at once, ahead of the shard still being filled
            continue
        if size + spec.nbytes > max_shard_bytes:
            shards.append(current)
            current, size = [], 0
        current.append(spec)
        size += spec.nbytes
    return shards + ([current] if current else [])


def write_safetensors(path: PathLike, specs: list[TensorSpec], seed: int) -> None:
    """A safetensors file of bf16 tensors, streamed tensor by tensor (names sorted, as torch does)."""
    specs = sorted(specs, key=lambda s: s.name)
    header: dict = {"__metadata__": {"format": "pt"}}
    offset = 0
    for spec in specs:
        end = offset + spec.nbytes
        header[spec.name] = {"dtype": "BF16", "shape": list(spec.shape), "data_offsets": [offset, end]}
        offset = end
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)  # the data section starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)) + blob)
        for spec in specs:
            for block in tensor_blocks(spec, seed):
                f.write(to_bf16_bits(block).astype("<u2").tobytes())


def _write_json(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _write_index(out: Path, names: list[str], shards: list[list[TensorSpec]]) -> None:
    weight_map = {spec.name: name for name, shard in zip(names, shards) for spec in shard}
    total_bytes = sum(spec.nbytes for shard in shards for spec in shard)
    metadata = {"total_parameters": total_bytes // 2, "total_size": total_bytes}
    index = {"metadata": metadata, "weight_map": weight_map}
    text = json.dumps(index, indent=2, sort_keys=True) + "\n"
    (out / "model.safetensors.index.json").write_text(text)


# --- transformers-native "-hf" layout (model ids like Qwen/Qwen3-ASR-0.6B-hf) -------------------
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
HF_RENAMES = (
    ("thinker.model.", "model.language_model."),
    ("thinker.audio_tower.proj1.", "model.multi_modal_projector.linear_1."),
    ("thinker.audio_tower.proj2.", "model.multi_modal_projector.linear_2."),
    ("thinker.audio_tower.", "model.audio_tower."),
)
HF_GENERATION_CONFIG = {
    "do_sample": False,
    "eos_token_id": [151643, 151645],
    "max_new_tokens": 512,
    "pad_token_id": 151645,
    "transformers_version": "5.23.0",
}
HF_AUDIO_KEYS = (
    "activation_dropout", "activation_function", "attention_dropout", "conv_chunksize", "d_model",
    "downsample_hidden_size", "dropout", "encoder_attention_heads", "encoder_ffn_dim", "encoder_layers",
    "initializer_range", "n_window", "n_window_infer", "num_mel_bins", "output_dim", "scale_embedding",
)
HF_TEXT_KEYS = (
    "attention_bias", "attention_dropout", "bos_token_id", "eos_token_id", "head_dim", "hidden_act",
    "hidden_size", "initializer_range", "intermediate_size", "max_position_embeddings",
    "num_attention_heads", "num_hidden_layers", "num_key_value_heads", "pad_token_id", "rms_norm_eps",
    "tie_word_embeddings", "use_cache", "vocab_size",
)


def hf_name(name: str) -> str:
    """Official tensor name -> "-hf" tensor name."""
    for old, new in HF_RENAMES:
        if name.startswith(old):
            return new + name[len(old):]
    raise ValueError(f"no -hf name for {name}")


def _hf_specs(specs: list[TensorSpec]) -> list[TensorSpec]:
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
