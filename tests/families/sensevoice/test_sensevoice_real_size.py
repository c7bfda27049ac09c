"""The real SenseVoiceSmall configuration (512 wide, 50 + 20 layers, 25,055 pieces; random weights, a 0.9 GB
model.pt written at test time) against funasr 1.4.16: encoder rows, log-probabilities and collapsed ids."""

import os

import numpy as np
import pytest
from sensevoice_goldens import clip, golden, request, variants

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.sensevoice.model import N_QUERIES
from mlx_qwen3asr.testing.random_sensevoice import real_sensevoice_config, write_random_sensevoice


@pytest.fixture(scope="module")
def real_folder(tmp_path_factory):
    return write_random_sensevoice(tmp_path_factory.mktemp("sensevoice-real") / "model", real_sensevoice_config())


@pytest.fixture(scope="module")
def real_model(real_folder):
    return mq.load(real_folder, dtype="float32")


# the 40 s clip at the real size takes ~18 s: behind the slow lane (the tiny config's 40 s golden runs always)
SLOW = pytest.mark.skipif(not os.environ.get("MLX_QWEN3ASR_SLOW_TESTS"), reason="set MLX_QWEN3ASR_SLOW_TESTS=1")


@pytest.mark.parametrize("name", ["short", pytest.param("joined40", marks=SLOW)])
def test_the_real_configuration_gives_funasr_rows_and_ids(real_model, name):
    want = golden(name, size="real")
    assert real_model.args.vocab_size == 25055 and len(real_model.encoder.layers) == 70
    encoded = real_model.encode(real_model.features(clip(name)), None, False)
    assert encoded.shape == (int(want["n_frames"]) + N_QUERIES, 512)
    rows = want["rows"]
    # the front end's FFT round-off through 70 layers; O(1) rows (LayerNorm output): measured 2.2e-5 (short), 1.7e-5 (40 s)
    np.testing.assert_allclose(np.array(encoded)[rows], want["encoder"], atol=2e-4, rtol=0)
    logprobs = np.array(real_model.log_probs(encoded))[rows][:, : want["logprobs"].shape[1]]
    # log-softmax over 25,055 classes (64 columns stored): measured 8.9e-5 (short), 6.0e-5 (40 s)
    np.testing.assert_allclose(logprobs, want["logprobs"], atol=1e-3, rtol=0)
    for variant in variants(want):
        language, itn, cmvn = request(variant)
        if not cmvn:
            continue  # the real model is loaded with its am.mvn; the tiny goldens hold CMVN off
        segment = real_model.recognise(clip(name), language, itn)
        assert segment.token_ids == want[f"{variant}_ids"].tolist(), f"{name} {variant}"
        assert real_model.vocabulary.decode(segment.token_ids) == str(want[f"{variant}_text"]), variant


@pytest.fixture(scope="module")
def model_without_cmvn(real_folder):
    (real_folder / "am.mvn").rename(real_folder / "am.mvn.off")  # funasr then applies no CMVN; so do we
    try:
        return mq.load(real_folder, dtype="float32")
    finally:
        (real_folder / "am.mvn.off").rename(real_folder / "am.mvn")


@pytest.mark.parametrize("name", ["short", pytest.param("joined40", marks=SLOW)])
def test_the_real_configuration_without_cmvn_gives_funasr_ids(model_without_cmvn, name):
    assert "cmvn" not in model_without_cmvn
    segment = model_without_cmvn.recognise(clip(name))
    assert segment.token_ids == golden(name, size="real")["auto_noitn_nocmvn_ids"].tolist(), name
