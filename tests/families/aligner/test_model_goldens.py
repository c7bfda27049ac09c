"""Ours vs the official Qwen3ForcedAligner (torch, float32, CPU) on the same random-weight checkpoint.

tests/fixtures/aligner/tiny_model_cases.json and tiny_model_logits.npz come from
scripts/make_aligner_goldens.py: the tiny aligner with listening gains (seed 0), the committed clips,
English, Chinese, mixed scripts, punctuation inside words, numbers, Korean, Japanese, a language without its own
rule, punctuation only, and the 15.7 s clip both as the official wrapper runs it (full encoder
attention) and windowed to 8 s as the model was trained.
"""

import json
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.aligner.aligner import timestamp_classes
from mlx_qwen3asr.families.aligner.model import prompt_ids
from mlx_qwen3asr.families.aligner.units import split_units

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = {case["name"]: case for case in json.loads((FIXTURES / "aligner/tiny_model_cases.json").read_text())["cases"]}
ARRAYS = np.load(FIXTURES / "aligner/tiny_model_logits.npz")
LOGIT_ATOL = 2e-3  # float32 torch vs MLX through 2 + 2 layers with x100 / x10 gains; logits are O(1-10)


@pytest.fixture(scope="module")
def aligner(tiny_aligner):
    return tiny_aligner


@pytest.fixture(scope="module")
def clips():
    return {name: mq.load_audio(FIXTURES / f"audio/{name}.wav") for name in ("short", "exact", "long")}


def our_logits(aligner, wave, case) -> np.ndarray:
    features = aligner.encode(mq.log_mel_spectrogram(wave), case["attention"] == "full")
    units = split_units(case["text"], case["language"])
    ids = prompt_ids([aligner.tokenizer.encode(u) for u in units], features.shape[0], aligner.args)
    assert ids == case["prompt_ids"], f"{case['name']}: prompt ids differ from the official processor's"
    return np.array(aligner.timestamp_logits(mx.array(ids), features))


@pytest.mark.parametrize("name", [n for n in CASES if n != "punctuation_only"])
def test_timestamp_logits_and_classes_match_the_official_aligner(aligner, clips, name):
    case = CASES[name]
    logits = our_logits(aligner, clips[case["clip"]], case)
    top_ids, top_logits = ARRAYS[f"{name}/top_ids"], ARRAYS[f"{name}/top_logits"]
    ours_at_top = np.take_along_axis(logits, top_ids, axis=-1)
    np.testing.assert_allclose(ours_at_top, top_logits, atol=LOGIT_ATOL, err_msg=f"{name}: top-k logits")
    assert logits.argmax(-1).tolist() == case["classes"], f"{name}: argmax classes"


@pytest.mark.parametrize("name", list(CASES))
def test_aligned_words_and_times_equal_the_official_ones(aligner, clips, name):
    case = CASES[name]
    words = mq.align(
        clips[case["clip"]], case["text"], aligner, case["language"], full_attention=case["attention"] == "full"
    )
    assert [[w.text, w.start, w.end] for w in words] == case["words"], name


def test_the_long_clip_encoder_output_matches_with_full_and_windowed_attention(aligner, clips):
    mel = mq.log_mel_spectrogram(clips["long"])
    for name, full in (("long_full", True), ("long_windowed", False)):
        ours = np.array(aligner.encode(mel, full_attention=full))
        np.testing.assert_allclose(ours, ARRAYS[f"{name}/encoder_out"], rtol=1e-4, atol=2e-3, err_msg=name)
    full, windowed = ARRAYS["long_full/encoder_out"], ARRAYS["long_windowed/encoder_out"]
    assert np.abs(full - windowed).max() > 0.1, "the two goldens must differ beyond the tolerance"


def test_full_and_windowed_attention_give_different_times_on_the_long_clip():
    full, windowed = CASES["long_full"], CASES["long_windowed"]
    assert full["prompt_ids"] == windowed["prompt_ids"]
    assert full["classes"] != windowed["classes"] and full["words"] != windowed["words"]


def test_text_without_any_letter_or_digit_aligns_to_no_words_as_the_official(aligner, clips):
    case = CASES["punctuation_only"]
    assert case["words"] == [] and len(case["classes"]) == 2, "the official times one pair and drops it"
    features = aligner.encode(mq.log_mel_spectrogram(clips["short"]), True)
    assert prompt_ids([], features.shape[0], aligner.args) == case["prompt_ids"]
    assert timestamp_classes(aligner, clips["short"], [], True) == case["classes"]
