"""Fun-ASR-Nano against the official transformers implementation (goldens in tests/fixtures/funasr,
made by scripts/make_funasr_goldens.py on the same tiny random checkpoint)."""

import mlx.core as mx
import numpy as np
import pytest
from funasr_goldens import VARIANTS, clip, load_funasr_golden

from mlx_qwen3asr.audio.fbank import fbank, stack_lfr
from mlx_qwen3asr.decode.generate import generate

CLIPS = ("short", "long", "exact", "noise", "joined40")
MAX_NEW_TOKENS = 24


def golden(name: str) -> dict:
    return load_funasr_golden(name)


def variants(name: str) -> list[str]:
    return [k[: -len("_tokens")] for k in golden(name) if k.endswith("_tokens")]


def our_prompt(model, n_frames: int, variant: str) -> list[int]:
    request = VARIANTS[variant]
    return model.prompt_ids(n_frames, request.get("prompt", ""), request.get("language"), request.get("keywords", ()))


@pytest.mark.parametrize("name", CLIPS)
def test_features_match_the_official_feature_extractor(name):
    # float32 FFT round-off is relative to each frame's peak: low bins differ by up to ~6e-4 between
    # correct implementations (torch's FFT and numpy's); the bulk agrees to ~1e-5.
    want = golden(name)
    ours = stack_lfr(fbank(clip(name)))
    assert ours.shape[0] == want["n_frames"], "one LFR row per 6 fbank frames, rounded up"
    diff = np.abs(ours[want["features_rows"]] - want["features"])
    assert diff.max() < 1e-3, f"max |diff| {diff.max():.2e}"
    assert np.quantile(diff, 0.99) < 1e-4, f"99th percentile {np.quantile(diff, 0.99):.2e}"
    assert diff.mean() < 1e-5, f"mean |diff| {diff.mean():.2e}"


def test_encoder_and_adaptor_match_the_official_ones_to_float32_round_off_on_its_features(funasr):
    want = golden("short")
    embeddings = np.array(funasr.encode(mx.array(want["all_features"])))
    # O(1) embeddings; two correct float32 runs (sdpa vs eager attention) differ by ~2-5e-6
    np.testing.assert_allclose(embeddings[want["embeddings_rows"]], want["embeddings"], atol=2e-5, rtol=0)


@pytest.mark.parametrize("name", CLIPS)
def test_audio_embeddings_from_audio_match_the_official_ones(funasr, name):
    want = golden(name)
    embeddings = np.array(funasr.encode(funasr.features(clip(name))))
    assert embeddings.shape[0] == want["n_frames"], "one embedding per LFR frame"
    # the features' own FFT round-off (up to ~6e-4 on low bins, above) passes through the encoder
    np.testing.assert_allclose(embeddings[want["embeddings_rows"]], want["embeddings"], atol=1e-3, rtol=0)


@pytest.mark.parametrize("name", CLIPS)
def test_prompt_ids_match_the_official_processor(funasr, name):
    want = golden(name)
    for variant in variants(name):
        ours = our_prompt(funasr, int(want["n_frames"]), variant)
        assert ours == want[f"{variant}_prompt_ids"].tolist(), f"{name} {variant}"


@pytest.mark.parametrize("name", CLIPS)
def test_greedy_tokens_and_text_are_identical_to_the_official_ones(funasr, name):
    want = golden(name)
    features = funasr.encode(funasr.features(clip(name)))
    for variant in variants(name):
        prompt = mx.array(our_prompt(funasr, features.shape[0], variant))
        result = generate(funasr, funasr.embed(prompt, features), MAX_NEW_TOKENS, funasr.tokenizer.eos_token_ids)
        tokens = want[f"{variant}_tokens"].tolist()  # an official EOS, if any, ends it; ours drops it
        ended = bool(tokens) and tokens[-1] in funasr.tokenizer.eos_token_ids
        assert result.token_ids == (tokens[:-1] if ended else tokens), f"{name} {variant}"
        assert result.finish_reason == ("stop" if ended else "length"), f"{name} {variant}"
        text = funasr.tokenizer.decode(result.token_ids)
        assert text == str(want[f"{variant}_text"]), f"{name} {variant}"
