"""SenseVoiceSmall against funasr 1.4.16 on the same tiny random release (goldens in tests/fixtures/sensevoice)."""

import mlx.core as mx
import numpy as np
import pytest
from sensevoice_goldens import CLIPS, clip, golden, request, variants

from mlx_qwen3asr.families.funasr_release import lfr_features
from mlx_qwen3asr.families.sensevoice.model import N_QUERIES


@pytest.mark.parametrize("name", CLIPS)
def test_features_before_cmvn_match_funasr_front_end(name):
    # float32 FFT round-off is relative to each frame's peak: a few low bins differ by up to ~2e-3 between
    # torch's FFT and numpy's (on 32768-scaled audio, log-mels near 20); the bulk agrees to ~1e-6.
    want = golden(name)
    ours = lfr_features(clip(name))
    assert ours.shape[0] == want["n_frames"], "one LFR row per 6 fbank frames, rounded up"
    diff = np.abs(ours[want["nocmvn_rows"][N_QUERIES:] - N_QUERIES] - want["nocmvn_features"][N_QUERIES:])
    assert diff.max() < 5e-3, f"max |diff| {diff.max():.2e}"
    assert np.quantile(diff, 0.99) < 1e-4, f"99th percentile {np.quantile(diff, 0.99):.2e}"


@pytest.mark.parametrize("name", CLIPS)
def test_features_with_cmvn_and_the_query_rows_match_the_encoder_input(sensevoice, name):
    want = golden(name)
    ours = np.array(mx.concatenate([sensevoice.queries(None, False), sensevoice.features(clip(name))]))
    rows = want["rows"]
    # query rows are embedding rows: exact; features: the FFT round-off above times the CMVN scale (< 0.35)
    queries = rows < N_QUERIES
    np.testing.assert_array_equal(ours[rows[queries]], want["features"][queries])
    diff = np.abs(ours[rows[~queries]] - want["features"][~queries])
    assert diff.max() < 2e-3, f"max |diff| {diff.max():.2e}"


def test_encoder_and_log_probs_match_funasr_on_its_own_input(sensevoice):
    want = golden("short")  # whole: every row of the encoder's input, output and log-probabilities
    features = mx.array(want["features"][N_QUERIES:])
    encoded = sensevoice.encode(features, None, False)
    # O(1) outputs; two float32 runs of the same 5 layers differ by a few ulps of the sums: measured 3.5e-6
    np.testing.assert_allclose(np.array(encoded), want["encoder"], atol=2e-5, rtol=0)
    # log-softmax over 600 classes of logits ~3: measured 1.4e-5
    np.testing.assert_allclose(np.array(sensevoice.log_probs(encoded)), want["logprobs"], atol=1e-4, rtol=0)


@pytest.mark.parametrize("name", CLIPS)
@pytest.mark.parametrize("cmvn", [True, False], ids=["cmvn", "nocmvn"])
def test_encoder_and_log_probs_from_audio_match_funasr(models, name, cmvn):
    want = golden(name)
    prefix = "" if cmvn else "nocmvn_"
    model = models[cmvn]
    encoded = model.encode(model.features(clip(name)), None, False)
    rows = want[f"{prefix}rows"]
    # the front end's FFT round-off (above) passes through the encoder: measured at most 3.6e-5 (encoder rows)
    # and 1.3e-4 (log-probabilities) over these clips, with CMVN and without
    np.testing.assert_allclose(np.array(encoded)[rows], want[f"{prefix}encoder"], atol=2e-4, rtol=0)
    logprobs = np.array(model.log_probs(encoded))[rows]
    np.testing.assert_allclose(logprobs, want[f"{prefix}logprobs"], atol=1e-3, rtol=0)


@pytest.mark.parametrize("name", CLIPS)
def test_every_frame_best_id_and_the_collapsed_ids_are_funasr_ones(models, name):
    want = golden(name)
    for variant in variants(want):
        language, itn, cmvn = request(variant)
        model = models[cmvn]
        logprobs = model.log_probs(model.encode(model.features(clip(name)), language, itn))
        best = np.array(mx.argmax(logprobs, axis=-1))
        np.testing.assert_array_equal(best, want[f"{variant}_argmax"], err_msg=f"{name} {variant}")
        segment = model.recognise(clip(name), language, itn)
        assert segment.token_ids == want[f"{variant}_ids"].tolist(), f"{name} {variant}"
        assert model.vocabulary.decode(segment.token_ids) == str(want[f"{variant}_text"]), f"{name} {variant}"
