"""Text and token times as funasr makes them: sentence_postprocess on made-up token lists
(tests/fixtures/paraformer/postprocess.json) and ts_prediction_lfr6_standard on funasr's own alphas and fires."""

import json

import numpy as np
import pytest
from paraformer_goldens import CLIPS, GOLDENS, REAL_CLIPS, clip, golden

from mlx_qwen3asr.families.paraformer.text import sentence
from mlx_qwen3asr.families.paraformer.timestamps import token_times
from mlx_qwen3asr.testing.random_paraformer import REAL_VOCAB, tokens

CASES = json.loads((GOLDENS / "postprocess.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[" ".join(c["tokens"]) or "empty" for c in CASES])
def test_sentences_are_funasr_ones(case):
    text, words, _ = sentence(case["tokens"])
    assert (text, words) == (case["text"], case["words"])
    _, timed_words, spans = sentence(case["tokens"], case["times"])
    assert [list(s) for s in spans] == case["ts"]
    assert " ".join(timed_words) == case["ts_text"], "with times funasr joins the words by spaces"


def test_chinese_joins_without_spaces_english_with_them():
    assert sentence(["你", "好", "世", "界"])[0] == "你好世界"
    assert sentence(["hello", "qu@@", "ick", "fox"])[0] == "hello quick fox"
    assert sentence(["你", "hello", "好"])[0] == "你hello好", "a CJK token drops the space before it"


@pytest.mark.parametrize("name", CLIPS)
def test_token_times_from_funasr_alphas_are_its_times(paraformer, name):
    want = golden(name)
    times = token_times(want["alphas"], want["fires"], len(want["ids"]))
    assert times == want["token_ms"].tolist()
    tokens = [paraformer.tokens[i] for i in want["ids"]]
    _, words, spans = sentence(tokens, times)
    assert (" ".join(words), spans) == (str(want["ts_text"]), want["timestamp"].tolist())


@pytest.mark.parametrize("name", CLIPS)
def test_our_token_times_are_funasr_ones_but_a_frame_at_round_off_ties(paraformer, name):
    want = golden(name)
    segment = paraformer.recognise(clip(name))
    ours = [[round(w.start * 1000), round(w.end * 1000)] for w in segment.words]
    theirs = [[max(0, s), max(0, e)] for s, e in want["timestamp"].tolist()]
    assert len(ours) == len(theirs)
    off = np.abs(np.array(ours) - np.array(theirs)).reshape(-1, 2).max(axis=1) if ours else np.zeros(0)
    # the places come from a float32 running sum of fires that differ by ~1e-5: a crossing can move by one
    # 60 ms frame (measured: 2 of 302 tokens on the 40 s clip, none elsewhere)
    assert (off <= 60).all() and (off > 0).mean() <= 0.02, off


@pytest.mark.parametrize("name", REAL_CLIPS)
def test_the_real_configurations_text_and_times_from_funasr_ids_and_fires_are_its_own(name):
    want, vocabulary = golden(name, "real"), tokens(REAL_VOCAB)
    pieces = [vocabulary[i] for i in want["ids"]]
    assert sentence(pieces)[0] == str(want["text"])
    times = token_times(want["alphas"], want["fires"], len(pieces))
    assert times == want["token_ms"].tolist()
    _, words, spans = sentence(pieces, times)
    assert (" ".join(words), spans) == (str(want["ts_text"]), want["timestamp"].tolist())
