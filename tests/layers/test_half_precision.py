"""The branches a GPU takes, forced on the CPU: half precision weights and activations, which route
attention through mx.fast.scaled_dot_product_attention and the activations through their half path.
Compared with the float32 CPU path within float16's precision (11 bits: ~1e-3 relative)."""

import mlx.core as mx
import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.qwen3_asr.prompt import build_prompt
from mlx_qwen3asr.families.recogniser import encode_audio

TOLERANCE = 2e-2  # of the largest magnitude: float16 rounding through 2 encoder + 2 decoder layers


@pytest.fixture(scope="module")
def models(tiny_checkpoint):
    return mq.load(tiny_checkpoint, dtype="float32"), mq.load(tiny_checkpoint, dtype="float16")


def relative_error(half: mx.array, full: mx.array) -> float:
    half, full = np.array(half.astype(mx.float32)), np.array(full)
    return float(np.abs(half - full).max() / np.abs(full).max())


def test_float16_encoder_and_logits_match_float32_within_half_precision(models, speech):
    full, half = models
    assert half.dtype == mx.float16
    features = encode_audio(full, speech), encode_audio(half, speech)
    assert relative_error(features[1], features[0]) < TOLERANCE, "encoder output"
    prompt = mx.array(build_prompt(full.tokenizer, features[0].shape[0]))
    logits = [model(model.embed(prompt, f)) for model, f in zip((full, half), features)]
    assert relative_error(logits[1], logits[0]) < TOLERANCE, "last-position logits"


def test_float16_transcription_runs_the_whole_pipeline_to_text(models, speech):
    full, half = models
    result = mq.transcribe(speech, half, max_new_tokens=4)
    assert len(result.token_ids[0]) == 4 and result.text, result
    assert result.token_ids[0][0] == mq.transcribe(speech, full, max_new_tokens=1).token_ids[0][0], "first token"
