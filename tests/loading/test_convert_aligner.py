"""Converting a Qwen3-ForcedAligner: quantized like the ASR model, classifier head float, checked in timestamps."""

import json

import mlx.nn as nn
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.cli.convert import main
from mlx_qwen3asr.loading.convert import Recipe, convert
from mlx_qwen3asr.loading.convert.align_fidelity import check_alignment_fidelity


@pytest.fixture(scope="module")
def converted_aligner(tiny_aligner_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("converted") / "aligner-8bit"
    return convert(tiny_aligner_dir, out, Recipe(bits=8, encoder_bits=8, group_size=32, dtype="float32")).folder


def test_a_converted_aligner_loads_as_an_aligner_with_a_float_classifier_head(converted_aligner):
    quantization = json.loads((converted_aligner / "config.json").read_text())["quantization"]
    assert quantization["bits"] == 8 and quantization["lm_head"] is False, quantization
    aligner = mq.load(converted_aligner)
    assert isinstance(aligner, mq.ForcedAligner)
    assert isinstance(aligner.lm_head, nn.Linear), "the classifier head stays float (a Linear, not a QuantizedLinear)"
    assert type(aligner.model.layers[0].mlp.up_proj) is nn.QuantizedLinear


def test_an_8bit_aligner_keeps_most_classes(tiny_aligner_dir, converted_aligner):
    fidelity = check_alignment_fidelity(tiny_aligner_dir, converted_aligner)
    n = len(fidelity.reference_classes)
    assert n == 30, "15 units of the fidelity text, a start and an end each"
    assert fidelity.agreeing_classes >= 0.8 * n, fidelity  # 27/30 on this (very audio-sensitive) checkpoint


def test_a_float32_conversion_reports_identical_timestamps(tiny_aligner_dir, tmp_path):
    folder = convert(tiny_aligner_dir, tmp_path / "float", Recipe(bits=16, encoder_bits=16, dtype="float32")).folder
    fidelity = check_alignment_fidelity(tiny_aligner_dir, folder)
    assert fidelity.agreeing_classes == 30 and fidelity.max_time_difference == 0.0, fidelity


def test_the_converter_command_reports_fidelity_in_timestamps(tiny_aligner_dir, tmp_path, capsys):
    code = main(
        [
            "--model",
            str(tiny_aligner_dir),
            "-o",
            str(tmp_path / "out"),
            "--bits",
            "8",
            "--group-size",
            "32",
            "--dtype",
            "float32",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "fidelity   timestamp classes: " in out and "agree with the float source" in out, out
