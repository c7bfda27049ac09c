"""Greedy generation: stopping rules, token budget and the repetition guard."""

import mlx.core as mx
import numpy as np

from mlx_qwen3asr.decode.generate import find_loop, generate
from mlx_qwen3asr.options import token_budget


def _embeddings(model):
    return model.embed(mx.array(np.random.default_rng(3).integers(0, 151000, size=12)))


def test_generation_without_end_of_text_reports_that_the_budget_was_hit(tiny_model):
    result = generate(tiny_model, _embeddings(tiny_model), 6, eos_token_ids=())
    assert len(result.token_ids) == 6 and result.hit_token_budget, f"got {result}"


def test_generation_stops_at_end_of_text_and_leaves_it_out(tiny_model):
    free = generate(tiny_model, _embeddings(tiny_model), 6, eos_token_ids=())
    stop = free.token_ids[3]
    first = free.token_ids.index(stop)
    result = generate(tiny_model, _embeddings(tiny_model), 6, eos_token_ids=(stop,))
    assert result.token_ids == free.token_ids[:first], f"{result.token_ids} vs {free.token_ids}"
    assert not result.hit_token_budget, "stopping at end-of-text is not a budget hit"


def test_async_pipelined_decoding_equals_step_by_step_argmax(tiny_model):
    embeddings = _embeddings(tiny_model)
    cache = tiny_model.make_cache()
    expected, logits = [], tiny_model(embeddings, cache)
    for _ in range(8):
        expected.append(int(mx.argmax(logits[0, -1]).item()))
        logits = tiny_model(tiny_model.model.embed_tokens(mx.array([expected[-1]]))[None], cache)
    assert generate(tiny_model, embeddings, 8, eos_token_ids=()).token_ids == expected


def test_a_runaway_loop_is_detected_and_cut_to_one_copy():
    speech = [11, 12, 13, 14, 15]
    assert find_loop(speech + [7] * 31) is None, "31 repeats of one token is not yet a loop"
    assert find_loop(speech + [7] * 32) == 31, "32 repeats of one token keep one copy"
    phrase = [21, 22, 23, 24, 25, 26, 27, 28]
    assert find_loop(speech + phrase * 4) == 24, "an 8-token phrase 4 times keeps one copy"
    assert find_loop(speech + [1, 2] * 15) is None, "15 repeats of a 2-token pattern is still speech"


def test_token_budget_grows_with_duration():
    assert token_budget(0.5) < token_budget(10) < token_budget(30), "budget must grow with audio length"
    assert token_budget(30) >= 30 * 10, "30 s of fast speech (~10 tokens/s) must fit"
