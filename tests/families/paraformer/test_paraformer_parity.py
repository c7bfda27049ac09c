"""Paraformer against funasr 1.4.16 on the same tiny random release (goldens in tests/fixtures/paraformer):
every stage from the features to the text, for speech, noise, a 3 s clip, a 40 s clip and a tail fire."""

import numpy as np
import pytest
from paraformer_goldens import CLIPS, clip, golden


@pytest.fixture(scope="module")
def passes(paraformer):
    """Each clip through our stages once: features, encoder output, the CIF, the decoder's log-probabilities."""
    out = {}
    for name in CLIPS:
        features = paraformer.features(clip(name))
        encoded, alphas = paraformer.encode(features)
        cif = paraformer.fire(encoded, alphas)
        logprobs = np.array(paraformer.log_probs(cif["rows"], encoded))
        out[name] = {"features": np.array(features), "encoder": np.array(encoded), "logprobs": logprobs, **cif}
    return out


@pytest.mark.parametrize("name", CLIPS)
def test_features_encoder_rows_and_alphas_match_funasr(passes, name):
    want, ours = golden(name), passes[name]
    rows = want["rows"]
    assert ours["features"].shape[0] == want["n_frames"], "one LFR row per 6 fbank frames, rounded up"
    # torch's and numpy's float32 FFTs differ in low bins (relative to each frame's peak), times the CMVN scale:
    # measured at most 4.3e-4 (short) over these clips
    np.testing.assert_allclose(ours["features"][rows], want["features"], atol=2e-3, rtol=0)
    # O(1) LayerNorm outputs after 3 layers: measured 3.2e-5
    np.testing.assert_allclose(ours["encoder"][rows], want["encoder"], atol=2e-4, rtol=0)
    # sigmoid outputs in (0, 1): measured 1.0e-5 (40 s)
    np.testing.assert_allclose(ours["alphas"], want["alphas"], atol=1e-4, rtol=0)
    assert ours["alphas"][-1] == np.float32(0.45), "the tail frame carries tail_threshold"


@pytest.mark.parametrize("name", CLIPS)
def test_the_fired_count_the_token_rows_and_the_decoder_match_funasr(passes, name):
    want, ours = golden(name), passes[name]
    assert len(ours["rows"]) == want["count"], "N = floor of the alphas' sum, the tail included"
    fired = want["fires"] >= 1.0
    np.testing.assert_array_equal(ours["fires"] >= 1.0, fired, err_msg="the same frames fire")
    # running sums of ~600 alphas: measured 6.1e-5 (40 s)
    np.testing.assert_allclose(ours["fires"], want["fires"], atol=5e-4, rtol=0)
    # differences of prefix sums of alpha-weighted rows: measured 1.1e-4 (40 s)
    np.testing.assert_allclose(ours["rows"][want["embed_rows"]], want["embeds"], atol=1e-3, rtol=0)
    # log-softmax over 300 classes: measured 8.3e-4 (40 s)
    np.testing.assert_allclose(ours["logprobs"][want["embed_rows"]], want["logprobs"], atol=5e-3, rtol=0)


@pytest.mark.parametrize("name", CLIPS)
def test_token_ids_and_text_are_funasr_ones(paraformer, name):
    want = golden(name)
    segment = paraformer.recognise(clip(name))
    assert segment.token_ids == want["ids"].tolist(), name
    assert segment.text == str(want["text"]), name


def test_the_tail_clip_fires_its_last_token_on_the_tail_frame(passes):
    want, ours = golden("tail"), passes["tail"]
    assert want["fires"][-1] >= 1.0 and ours["fires"][-1] >= 1.0, "the tail frame fires"
    without_tail = int(np.floor(np.sum(want["alphas"][:-1], dtype=np.float64)))
    assert len(ours["rows"]) == without_tail + 1, "tail_threshold completes one more token"


def test_the_short_clip_matches_funasr_at_every_row(passes):
    want, ours = golden("short"), passes["short"]  # whole: every encoder row and token row
    assert len(want["rows"]) == want["n_frames"] and len(want["embed_rows"]) == want["count"]
    np.testing.assert_allclose(ours["encoder"], want["encoder"], atol=2e-4, rtol=0)
    np.testing.assert_allclose(ours["rows"], want["embeds"], atol=1e-3, rtol=0)
