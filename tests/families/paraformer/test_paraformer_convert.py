"""The converter on a Paraformer release: float and 8/4-bit MLX folders that `load` opens."""

import mlx.nn as nn
import numpy as np
import pytest
from paraformer_goldens import clip, golden

import mlx_qwen3asr as mq
from mlx_qwen3asr.loading.convert import Recipe, convert
from mlx_qwen3asr.loading.convert.fidelity import Trace, check_fidelity, compare


def test_a_float_conversion_gives_the_release_ids(paraformer_dir, tmp_path):
    out = convert(paraformer_dir, tmp_path / "float", Recipe(bits=16, encoder_bits=16, dtype="float32"))
    model = mq.load(out.folder)
    assert out.quantization is None and (out.folder / "tokens.json").is_file()
    assert mq.transcribe(clip("short"), model).segments[0].token_ids == golden("short")["ids"].tolist()


@pytest.mark.parametrize("bits", [8, 4])
def test_quantized_conversions_load_as_recorded_and_keep_the_predictor_and_decoder_close(
    paraformer_dir, paraformer, tmp_path, bits
):
    recipe = Recipe(bits=bits, encoder_bits=bits, group_size=32, dtype="float32")
    out = convert(paraformer_dir, tmp_path / f"q{bits}", recipe, allow_4bit_encoder=True)
    model = mq.load(out.folder)
    assert (
        isinstance(model.encoder.layers[1].mlp.fc1, nn.QuantizedLinear) and model.encoder.layers[1].mlp.fc1.bits == bits
    )
    assert isinstance(model.decoder.decoders[0].src_attn.linear_q, nn.QuantizedLinear)
    assert isinstance(model.predictor.cif_output, nn.Linear), "the predictor stays float: its count decides N"
    wave = clip("long")
    ours_encoded, ours_alphas = model.encode(model.features(wave))
    encoded, alphas = paraformer.encode(paraformer.features(wave))
    # alphas decide the count: measured at most 2.3e-3 (8-bit) and 3.2e-2 (4-bit) off on this random checkpoint
    assert np.abs(np.array(ours_alphas) - np.array(alphas)).max() < {8: 5e-3, 4: 6e-2}[bits]
    rows = paraformer.fire(encoded, alphas)["rows"]
    ours, reference = np.array(model.log_probs(rows, encoded)), np.array(paraformer.log_probs(rows, encoded))
    # the decoder on the same token rows: lowest log-prob cosine measured 0.999989 (8-bit), 0.9973 (4-bit)
    cosine = (ours * reference).sum(-1) / (np.linalg.norm(ours, axis=-1) * np.linalg.norm(reference, axis=-1))
    assert cosine.min() > {8: 0.9999, 4: 0.995}[bits], f"lowest log-prob cosine {cosine.min():.5f}"


def test_the_fidelity_check_compares_every_token_and_counts_a_missing_one_as_a_divergence(paraformer_dir, tmp_path):
    out = convert(paraformer_dir, tmp_path / "f32", Recipe(bits=16, encoder_bits=16, dtype="float32"))
    fidelity = check_fidelity(paraformer_dir, out.folder)
    assert fidelity.first_divergence is None and len(fidelity.reference_tokens) > 10, "one pick per token"
    shorter = Trace(fidelity.reference_tokens[:5], np.ones((5, 3)))
    assert (
        compare(
            Trace(fidelity.reference_tokens, np.ones((len(fidelity.reference_tokens), 3))), shorter
        ).first_divergence
        == 5
    )
