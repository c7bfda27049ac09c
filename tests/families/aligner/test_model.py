"""The MLX ForcedAligner on a tiny random-weight aligner checkpoint in the official layout."""

import json

import mlx.core as mx
import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.aligner.model import AlignerArgs, ForcedAligner, prompt_ids
from mlx_qwen3asr.families.qwen3_asr.encoder import n_audio_tokens
from mlx_qwen3asr.testing.random_aligner import tiny_aligner_config, write_random_aligner
from mlx_qwen3asr.testing.random_checkpoint import tiny_config
from mlx_qwen3asr.text.tokenizer import Tokenizer


@pytest.fixture(scope="module")
def aligner_dir(tmp_path_factory):
    return write_random_aligner(tmp_path_factory.mktemp("aligner") / "model", tiny_aligner_config(), seed=0)


@pytest.fixture(scope="module")
def aligner(aligner_dir):
    return mq.load(aligner_dir, dtype="float32")


def test_load_builds_a_forced_aligner_from_the_config_model_type(aligner):
    assert isinstance(aligner, ForcedAligner), type(aligner)
    assert aligner.tokenizer.encode("<timestamp>") == [151705], "the aligner's own tokenizer is attached"


def test_the_head_is_an_untied_classifier_with_one_row_per_class(aligner):
    head = np.array(aligner.lm_head.weight)
    assert head.shape == (5000, 64), "classify_num rows of hidden size"
    assert not np.allclose(head, np.array(aligner.model.embed_tokens.weight[:5000])), "head must not be tied"


def test_each_timestamp_token_gets_one_class_from_the_grid(aligner, aligner_dir):
    tokenizer = Tokenizer.from_dir(aligner_dir)
    units = ["Hello", "world", "你"]
    mel = mx.random.normal((300, 128), key=mx.random.key(0))
    features = aligner.encode(mel)
    ids = prompt_ids([tokenizer.encode(u) for u in units], features.shape[0], aligner.args)
    classes = aligner.timestamp_classes(mx.array(ids), features)
    assert len(classes) == 2 * len(units), "a start and an end class per unit"
    assert all(0 <= c < 5000 for c in classes), classes


def test_the_prompt_is_the_audio_block_then_each_unit_with_two_timestamps(aligner_dir):
    args = AlignerArgs.from_dict(json.loads((aligner_dir / "config.json").read_text()))
    tokenizer = Tokenizer.from_dir(aligner_dir)
    assert tokenizer.encode("<timestamp>") == [151705], "the aligner tokenizer knows <timestamp>"
    ids = prompt_ids([tokenizer.encode("Hello"), tokenizer.encode("314")], 2, args)
    # Official processor output for "...Hello<timestamp><timestamp>314<timestamp><timestamp>" with 2 pads.
    assert ids == [151669, 151676, 151676, 151670, 9707, 151705, 151705, 18, 16, 19, 151705, 151705]
    assert prompt_ids([], 1, args) == [151669, 151676, 151670, 151705, 151705], "no unit: one pair remains"


def test_windowed_encoder_keeps_8_second_windows_apart_and_full_attention_does_not(aligner):
    mel = mx.random.normal((2000, 128), key=mx.random.key(1))  # 20 s: windows of 104 + 104 + 52 tokens
    first_window = {full: np.array(aligner.encode(mel[:800], full_attention=full)) for full in (False, True)}
    np.testing.assert_allclose(
        first_window[False], first_window[True], atol=1e-5, err_msg="up to 8 s both attentions are the same"
    )
    np.testing.assert_allclose(
        np.array(aligner.encode(mel))[:104],
        first_window[False],
        atol=1e-5,
        err_msg="windowed: the first 8 s must not depend on later audio",
    )
    full_diff = np.abs(np.array(aligner.encode(mel, full_attention=True))[:104] - first_window[True]).max()
    assert full_diff > 1e-3, f"full attention: the first 8 s must see later audio (max diff {full_diff})"
    assert aligner.encode(mel, full_attention=True).shape == (n_audio_tokens(2000), 64)


def test_an_asr_config_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="not a Qwen3-ForcedAligner checkpoint"):
        AlignerArgs.from_dict(tiny_config())


def test_the_random_aligner_is_deterministic(tmp_path, aligner_dir):
    again = write_random_aligner(tmp_path / "again", tiny_aligner_config(), seed=0)
    for name in ("model.safetensors", "config.json", "tokenizer_config.json", "vocab.json"):
        assert (again / name).read_bytes() == (aligner_dir / name).read_bytes(), name
