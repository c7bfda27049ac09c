"""Long prompts are prefilled in blocks: the same tokens, memory bounded by one block; a decode can be
stopped from outside (the server drops the step of a client that left)."""

import threading

import mlx.core as mx
import numpy as np
import pytest
from goldens import AUDIO, CLIPS, VARIANTS, load_golden

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode import generate
from mlx_qwen3asr.runtime.interrupt import Interrupted, interruptible


@pytest.mark.parametrize("clip", CLIPS)
def test_prompts_prefilled_in_small_blocks_give_the_official_golden_tokens(tiny_model, clip, monkeypatch):
    """Blocks of 16 tokens split every golden prompt (49 to 234 tokens) many times."""
    monkeypatch.setattr(generate, "PREFILL_BLOCK", 16)
    g = load_golden(clip)
    for variant in ("plain", "both"):
        expected = g[f"{variant}_tokens"].tolist()
        result = mq.transcribe(AUDIO / f"{clip}.wav", tiny_model, max_new_tokens=len(expected), **VARIANTS[variant])
        assert result.token_ids == [expected], f"{clip}/{variant}: blocked prefill changed the greedy tokens"


def test_a_long_context_prefilled_in_blocks_holds_less_memory_and_decodes_the_same(tiny_model, speech, monkeypatch):
    context = " ".join(f"term{i}" for i in range(700))  # ~2,100 tokens: one pass would hold ~0.9 GB
    peaks, tokens, blocked = {}, {}, generate.PREFILL_BLOCK
    for block in (blocked, 10**6):  # blocks, then one pass (what main did)
        monkeypatch.setattr(generate, "PREFILL_BLOCK", block)
        mx.clear_cache()
        mx.reset_peak_memory()
        tokens[block] = mq.transcribe(speech, tiny_model, context=context, max_new_tokens=6).token_ids
        peaks[block] = mx.get_peak_memory()
    assert tokens[blocked] == tokens[10**6], "blocks changed the tokens"
    assert peaks[blocked] * 2 < peaks[10**6], f"peak bytes, blocks vs one pass: {peaks}"


def test_an_interrupted_decode_stops_at_its_next_token(tiny_model):
    embeddings = tiny_model.embed(mx.array(np.random.default_rng(3).integers(0, 151000, size=12)))
    calls = []

    def stop_after_five() -> bool:
        calls.append(threading.get_ident())
        return len(calls) > 5

    with interruptible(stop_after_five), pytest.raises(Interrupted):
        generate.generate(tiny_model, embeddings, 10_000, eos_token_ids=())
    assert len(calls) == 6, f"the check ran {len(calls)} times, not once a token until it said stop"
    assert len(generate.generate(tiny_model, embeddings, 8, eos_token_ids=()).token_ids) == 8, "outside: no stop"
