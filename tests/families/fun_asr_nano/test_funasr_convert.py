"""Converting and quantizing Fun-ASR-Nano; the original FunASR (model.pt) names."""

import re
import sys

import numpy as np
import pytest
from funasr_goldens import clip, load_funasr_golden

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.fun_asr_nano.original import ORIGINAL_WEIGHTS, hf_names
from mlx_qwen3asr.loading.convert import Recipe, convert
from mlx_qwen3asr.loading.convert.fidelity import check_fidelity
from mlx_qwen3asr.testing.random_funasr import funasr_specs, tiny_funasr_config


def test_a_float_conversion_gives_the_official_tokens(funasr, funasr_dir, tmp_path):
    folder = convert(funasr_dir, tmp_path / "f32", Recipe(bits=16, encoder_bits=16, dtype="float32")).folder
    converted = mq.load(folder)
    wave = clip("short")
    np.testing.assert_allclose(
        np.array(converted.encode(converted.features(wave))), np.array(funasr.encode(funasr.features(wave))), atol=1e-6
    )
    want = load_funasr_golden("short")["plain_tokens"].tolist()
    assert mq.transcribe(wave, converted, max_new_tokens=24).segments[0].token_ids == want


def test_quantization_puts_the_adaptor_with_the_encoder_and_keeps_what_fits_no_group_float(funasr_dir, tmp_path):
    result = convert(funasr_dir, tmp_path / "q", Recipe(bits=4, encoder_bits=8, group_size=32, dtype="float32"))
    entry = result.quantization
    assert (entry["bits"], entry["group_size"]) == (8, 32)  # the most common parameters: the audio side's
    assert entry["model.embed_tokens"]["bits"] == 4 and entry["model.layers.0.mlp.down_proj"]["bits"] == 4
    assert "multi_modal_projector.linear_1" not in entry, "the adaptor at the encoder's 8 bits"
    assert entry["audio_tower.layers.0.self_attn.q_proj"] is False, "560 inputs fit no group: float"
    model = mq.load(result.folder)
    assert model.encode(model.features(clip("short"))).shape == (43, 64)
    fidelity = check_fidelity(funasr_dir, result.folder, n_tokens=8, wave=clip("short"))
    assert len(fidelity.reference_tokens) == 8 and 0.9 < fidelity.logits_cosine <= 1.0 + 1e-6


def _original_name(name: str, transcription: int, last: int) -> list[str]:
    """The inverse of hf_names for one "-hf" name (q/k/v fused into linear_q_k_v)."""
    match = re.match(r"model\.audio_tower\.layers\.(\d+)\.(.*)", name)
    if match:
        i, rest = int(match.group(1)), match.group(2)
        if rest.startswith("final_layernorm."):
            norm = "after_norm" if i == transcription - 1 else "tp_norm"
            return [f"audio_encoder.{norm}.{rest.removeprefix('final_layernorm.')}"]
        block = (
            "encoders0.0"
            if i == 0
            else f"encoders.{i - 1}"
            if i < transcription
            else f"tp_encoders.{i - transcription}"
        )
        rest = re.sub(r"self_attn\.[qkv]_proj\.", "self_attn.linear_q_k_v.", rest)
        return [f"audio_encoder.{block}.{_original_block(rest)}"]
    match = re.match(r"model\.multi_modal_projector\.layers\.(\d+)\.(.*)", name)
    if match:
        rest = re.sub(r"self_attn\.([qkv])_proj\.", r"self_attn.linear_\1.", match.group(2))
        return [f"audio_adaptor.blocks.{match.group(1)}.{_original_block(rest)}"]
    name = name.replace("model.multi_modal_projector.linear_", "audio_adaptor.linear")
    return [name.replace("model.language_model.", "llm.model.")]


def _original_block(rest: str) -> str:
    for hf, original in (
        ("input_layernorm.", "norm1."), ("post_attention_layernorm.", "norm2."), ("self_attn.o_proj.", "self_attn.linear_out."),
        ("self_attn.fsmn.conv.", "self_attn.fsmn_block."), ("mlp.fc1.", "feed_forward.w_1."), ("mlp.fc2.", "feed_forward.w_2."),
    ):  # fmt: skip
        rest = rest.replace(hf, original)
    return rest.replace("self_attn.o_proj.", "self_attn.linear_out.")


def test_original_funasr_names_map_onto_the_hf_layout_with_qkv_split():
    config = tiny_funasr_config()
    audio = config["audio_config"]
    transcription = audio["num_hidden_layers"] - audio["num_timestamp_prediction_layers"]
    rng = np.random.default_rng(0)
    hf = {
        s.name: rng.standard_normal(s.shape[:1] if len(s.shape) == 1 else (s.shape[0], 2)) for s in funasr_specs(config)
    }
    original: dict[str, list] = {}
    for name, value in hf.items():
        for key in _original_name(name, transcription, audio["num_hidden_layers"] - 1):
            original.setdefault(key, []).append(value)  # q, k, v in module order: fused along rows
    state = {k: np.concatenate(v) for k, v in original.items()}
    state["ctc_decoder.linear.weight"] = np.zeros(3)  # the CTC branch is dropped
    mapped = hf_names(state, transcription)
    assert sorted(mapped) == sorted(hf)
    for name, value in hf.items():
        np.testing.assert_array_equal(mapped[name], value, err_msg=name)


def test_the_original_release_without_torch_is_one_line_saying_how(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` fails, as without it
    folder = tmp_path / "Fun-ASR-Nano-2512"
    folder.mkdir()
    (folder / ORIGINAL_WEIGHTS).write_bytes(b"not read")
    with pytest.raises(FileNotFoundError, match="original FunASR release .*convert it once with scripts/convert.sh"):
        mq.load(folder)
    with pytest.raises(ValueError, match=r"needs torch \(.venv/bin/pip install torch\), or use .*Fun-ASR-Nano-2512-hf"):
        convert(folder, tmp_path / "out")
    assert not (tmp_path / "out").exists()
