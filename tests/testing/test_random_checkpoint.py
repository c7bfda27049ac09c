"""The random-checkpoint generator writes exactly the published layouts, deterministically."""

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from mlx_qwen3asr.families.qwen3_asr.layout import hf_name
from mlx_qwen3asr.testing.random_checkpoint import tensor_specs, tiny_config, write_random_checkpoint
from mlx_qwen3asr.testing.tensors import plan_shards, to_bf16_bits


def read_bf16_file(path: Path) -> tuple[dict, dict]:
    """Header metadata and {name: uint16 bf16 bits} of a safetensors file, parsed by hand."""
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    metadata = header.pop("__metadata__")
    data = raw[8 + n :]
    tensors = {}
    for name, info in header.items():
        assert info["dtype"] == "BF16", (name, info)
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[start:end], dtype="<u2").reshape(info["shape"])
    return metadata, tensors


def read_folder(folder: Path) -> dict:
    tensors = {}
    for path in sorted(folder.glob("*.safetensors")):
        tensors.update(read_bf16_file(path)[1])
    return tensors


@pytest.fixture(scope="module")
def official(tmp_path_factory) -> Path:
    return write_random_checkpoint(tmp_path_factory.mktemp("official"), seed=0)


@pytest.fixture(scope="module")
def sharded(tmp_path_factory) -> Path:
    return write_random_checkpoint(tmp_path_factory.mktemp("sharded"), seed=0, max_shard_bytes=200_000)


def test_bf16_conversion_rounds_to_nearest_even():
    bits = np.array([0x3F800000, 0x3F808000, 0x3F818000, 0x3F80C000, 0x3F807FFF, 0xBF800001], dtype=np.uint32)
    got = to_bf16_bits(bits.view(np.float32)).tolist()
    assert got == [0x3F80, 0x3F80, 0x3F82, 0x3F81, 0x3F80, 0xBF80], [hex(b) for b in got]


def test_bf16_round_trip_is_within_half_an_ulp():
    x = np.random.default_rng(1).standard_normal(10_000).astype(np.float32)
    back = (to_bf16_bits(x).astype(np.uint32) << 16).view(np.float32)
    assert np.all(np.abs(back - x) <= np.abs(x) * 2.0**-8), "bf16 rounding error above half an ulp"


def test_tiny_config_shrinks_only_layer_sizes():
    thinker = tiny_config()["thinker_config"]
    audio, text = thinker["audio_config"], thinker["text_config"]
    assert (audio["d_model"], audio["encoder_layers"], audio["output_dim"]) == (64, 2, 64)
    assert (text["hidden_size"], text["num_key_value_heads"], text["head_dim"]) == (64, 2, 16)
    assert (text["vocab_size"], audio["num_mel_bins"], audio["n_window"], audio["n_window_infer"]) == (
        151936,
        128,
        50,
        800,
    ), "vocabulary and audio windowing must stay as in the real checkpoint"
    assert thinker["audio_token_id"] == 151676 and text["rope_theta"] == 1000000


def test_official_layout_has_the_upstream_names_shapes_and_metadata(official):
    metadata, tensors = read_bf16_file(official / "model.safetensors")
    assert metadata == {"format": "pt"}
    assert len(tensors) == 70, sorted(tensors)
    expected_shapes = {
        "thinker.audio_tower.conv2d1.weight": (32, 1, 3, 3),
        "thinker.audio_tower.conv2d3.weight": (32, 32, 3, 3),
        "thinker.audio_tower.conv_out.weight": (64, 32 * 16),
        "thinker.audio_tower.layers.1.self_attn.out_proj.bias": (64,),
        "thinker.audio_tower.proj2.weight": (64, 64),
        "thinker.model.layers.1.self_attn.k_proj.weight": (32, 64),
        "thinker.model.layers.0.self_attn.q_norm.weight": (16,),
        "thinker.model.embed_tokens.weight": (151936, 64),
    }
    for name, shape in expected_shapes.items():
        assert tensors[name].shape == shape, (name, tensors[name].shape)
    assert "thinker.audio_tower.conv_out.bias" not in tensors, "conv_out has no bias upstream"
    assert np.array_equal(tensors["thinker.lm_head.weight"], tensors["thinker.model.embed_tokens.weight"])
    assert json.loads((official / "config.json").read_text()) == tiny_config()


def test_same_seed_gives_identical_files_and_another_seed_does_not(official, tmp_path):
    again = write_random_checkpoint(tmp_path / "again", seed=0)
    other = write_random_checkpoint(tmp_path / "other", seed=1)
    assert (again / "model.safetensors").read_bytes() == (official / "model.safetensors").read_bytes()
    assert (other / "model.safetensors").read_bytes() != (official / "model.safetensors").read_bytes()


def test_sharded_index_matches_the_shards_and_the_single_file(official, sharded):
    index = json.loads((sharded / "model.safetensors.index.json").read_text())
    shards = sorted(p.name for p in sharded.glob("model-*.safetensors"))
    assert shards == [f"model-{i:05d}-of-{len(shards):05d}.safetensors" for i in range(1, len(shards) + 1)]
    for shard in shards:
        names = read_bf16_file(sharded / shard)[1]
        assert {n for n, f in index["weight_map"].items() if f == shard} == set(names), shard
    single = read_folder(official)
    assert index["metadata"]["total_size"] == sum(t.nbytes for t in single.values())
    merged = read_folder(sharded)
    assert merged.keys() == single.keys()
    assert all(np.array_equal(merged[k], single[k]) for k in single), "sharding changed tensor values"


def test_an_oversized_tensor_gets_a_shard_of_its_own():
    specs = tensor_specs(tiny_config())
    shards = plan_shards(specs, 200_000)
    for big in ("thinker.model.embed_tokens.weight", "thinker.lm_head.weight"):
        assert [big] in [[t.name for t in shard] for shard in shards], f"{big} (19 MB) must sit alone"
    names = [t.name for shard in shards for t in shard]
    assert sorted(names) == sorted(t.name for t in specs), "every tensor in exactly one shard"
    assert all(sum(t.nbytes for t in shard) <= 200_000 for shard in shards if len(shard) > 1)


def test_hf_layout_renames_drops_the_tied_head_and_keeps_values(official, tmp_path):
    hf = write_random_checkpoint(tmp_path / "hf", layout="hf")
    tensors, reference = read_folder(hf), read_folder(official)
    assert "lm_head.weight" not in tensors, "transformers saves the tied head only once"
    assert "model.multi_modal_projector.linear_1.weight" in tensors
    assert {hf_name(n): t for n, t in reference.items() if n != "thinker.lm_head.weight"}.keys() == tensors.keys()
    assert all(np.array_equal(tensors[hf_name(n)], reference[n]) for n in reference if "lm_head" not in n)
    config = json.loads((hf / "config.json").read_text())
    assert "thinker_config" not in config and config["audio_config"]["model_type"] == "qwen3_asr_encoder"
    assert config["text_config"]["rope_parameters"] == {"rope_theta": 1000000, "rope_type": "default"}
