"""Parity with the official PyTorch implementation, on goldens it produced (tests/fixtures/goldens).

The goldens come from the official qwen-asr package (float32, windowed encoder attention) run on the
tiny random checkpoint that the `tiny_checkpoint` fixture rebuilds bit for bit from seed 0.
"""

import mlx.core as mx
import numpy as np
import pytest
from goldens import AUDIO, CLIPS, VARIANTS, load_golden

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.qwen3_asr.prompt import build_prompt


@pytest.fixture(scope="module", params=CLIPS)
def golden(request):
    return request.param, load_golden(request.param)


def test_wav_fixture_decodes_to_the_waveform_the_official_code_was_fed(golden):
    name, g = golden
    np.testing.assert_array_equal(mq.load_audio(AUDIO / f"{name}.wav"), g["audio"])


def test_log_mel_is_within_1e_5_of_the_official_processor_above_65_db_below_the_peak(golden):
    """Float32 STFT round-off: bins 65+ dB below the clip's peak (log-mel < -0.25, vs a peak ~1.3)
    differ by up to 6e-5, as much as the official float32 STFT itself differs from a float64 one."""
    _, g = golden
    mel = np.array(mq.log_mel_spectrogram(g["audio"]))
    assert mel.shape == g["mel"].shape, f"{mel.shape} vs {g['mel'].shape}"
    loud = g["mel"] >= -0.25
    assert np.abs(mel - g["mel"])[loud].max() <= 1e-5, "audible bins must match to 1e-5"
    assert np.abs(mel - g["mel"]).max() <= 1e-4, "quiet bins must stay within float32 round-off"


def test_encoder_output_matches_the_official_windowed_encoder(golden, tiny_model):
    _, g = golden
    out = np.array(tiny_model.encode(mx.array(g["mel"])))
    assert out.shape == g["encoder_out"].shape
    np.testing.assert_allclose(out, g["encoder_out"], atol=2e-5, rtol=0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_prompt_ids_match_the_official_processor(golden, tiny_model, variant):
    _, g = golden
    ids = build_prompt(tiny_model.tokenizer, int(g["n_audio_tokens"]), **VARIANTS[variant])
    assert ids == g[f"{variant}_prompt_ids"].tolist()


@pytest.mark.parametrize("variant", VARIANTS)
def test_last_prompt_logits_match_the_official_forward(golden, tiny_model, variant):
    _, g = golden
    embeddings = tiny_model.embed(mx.array(g[f"{variant}_prompt_ids"]), mx.array(g["encoder_out"]))
    logits = np.array(tiny_model(embeddings)[0, -1])
    expected = g[f"{variant}_last_logits"]
    # float32 round-off: logits reach ~100 here, so allow 5e-6 of the largest magnitude (~5e-4)
    tolerance = 5e-6 * np.abs(expected).max()
    np.testing.assert_allclose(logits[g[f"{variant}_last_logits_ids"]], expected, atol=tolerance, rtol=0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_greedy_tokens_and_text_are_identical_to_the_official_ones(golden, tiny_model, variant):
    name, g = golden
    expected = g[f"{variant}_tokens"].tolist()
    result = mq.transcribe(AUDIO / f"{name}.wav", tiny_model, max_new_tokens=len(expected), **VARIANTS[variant])
    assert result.token_ids == [expected], f"{name}/{variant}: greedy ids differ from the official ones"
    raw = tiny_model.tokenizer.decode(result.token_ids[0])
    assert raw == str(g[f"{variant}_text"]), "decoded text differs from the official batch_decode"
