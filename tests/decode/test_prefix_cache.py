"""The prompt-prefix cache: a context's prompt head computed once and copied into each decode's cache
gives the tokens of prefilling every prompt whole, offline (one chunk, many chunks), batched,
streaming and live (the server's in tests/server/test_server.py), with and without a context.

The head's keys and values computed alone are the same math as inside the whole prompt (causal
attention), but the products have other shapes (P rows instead of P + n), so a BLAS may round the
last bits differently: tokens are compared exactly, the keys and values within a float tolerance.
"""

import mlx.core as mx
import numpy as np
import pytest
from goldens import AUDIO, CLIPS, VARIANTS, load_golden

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.generate import prefill
from mlx_qwen3asr.decode.prefix_cache import PrefixCache
from mlx_qwen3asr.families.qwen3_asr.prompt import build_prompt, prompt_head
from mlx_qwen3asr.families.recogniser import encode_audio
from mlx_qwen3asr.streaming import StreamingTuning

LONG_CONTEXT = "Names: Qwen, MLX, Zürich, Tongyi, DashScope. Topic: speech recognition on MLX. " * 12  # ~290 tokens
CONTEXTS = {"no context": "", "long context": LONG_CONTEXT}
SR = 16000


class FakeClock:
    """Advances only when told: partials are then due at the same samples in every run."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def speech_with_pauses() -> np.ndarray:
    """~26 s: three clips of espeak speech between stretches of digital silence."""
    gap = np.zeros(int(2.5 * SR), np.float32)
    clips = [mq.load_audio(AUDIO / f"{name}.wav") for name in ("long", "short", "exact")]
    return np.concatenate([gap, clips[0], gap, clips[1], gap, clips[2], gap])


@pytest.mark.parametrize("context", CONTEXTS.values(), ids=CONTEXTS.keys())
def test_the_heads_keys_and_values_alone_agree_with_those_inside_the_whole_prompt(tiny_model, speech, context):
    """Measured: |difference| <= 2.1e-6 where |k| reaches ~3.2 (a few float32 steps of 2.4e-7); allowed
    1e-5 of the largest magnitude: round-off of other product shapes, far below any real change."""
    features = encode_audio(tiny_model, speech)
    ids = build_prompt(tiny_model.tokenizer, features.shape[0], context)
    whole = tiny_model.make_cache()
    prefill(tiny_model, tiny_model.embed(mx.array(ids), features), whole)
    head = PrefixCache(tiny_model).head(context)
    length = len(prompt_head(tiny_model.tokenizer, context))
    assert ids[:length] == prompt_head(tiny_model.tokenizer, context) and head[0].offset == length
    for layer, (inside, alone) in enumerate(zip(whole, head)):
        for name in ("keys", "values"):
            expected = np.array(getattr(inside, name)[..., :length, :])
            got = np.array(getattr(alone, name)[..., :length, :])
            tolerance = 1e-5 * np.abs(expected).max()
            np.testing.assert_allclose(got, expected, rtol=0, atol=tolerance, err_msg=f"layer {layer} {name}")


def test_each_decode_gets_a_copy_of_its_own_and_the_stored_head_never_changes(tiny_model):
    prefixes = PrefixCache(tiny_model)
    stored = [np.array(layer.keys[..., : layer.offset, :]) for layer in prefixes.head("Names: Qwen")]
    first, second = prefixes.cache("Names: Qwen", prompt_length=60), prefixes.cache("Names: Qwen")
    layer = first[0]
    layer.trim(2)
    junk = mx.ones((1, layer.keys.shape[1], 30, layer.keys.shape[3]))
    layer.update_and_fetch(junk, junk)  # overwrites the last 2 head positions and goes on
    again = prefixes.head("Names: Qwen")
    assert all(np.array_equal(np.array(a.keys[..., : a.offset, :]), s) for a, s in zip(again, stored)), "head changed"
    assert np.array_equal(np.array(second[0].keys[..., : second[0].offset, :]), stored[0]), "another copy changed"
    assert (prefixes.misses, prefixes.hits) == (1, 3), "one computation, then reuse"


def test_the_least_recently_used_head_is_dropped_to_stay_within_the_memory_bound(tiny_model):
    size = sum(layer.nbytes for layer in PrefixCache(tiny_model).head("a"))
    prefixes = PrefixCache(tiny_model, max_bytes=2 * size)
    for context in ("a", "b", "a", "c"):  # "b" is the least recently used when "c" arrives
        prefixes.head(context)
    assert prefixes.contexts == ["a", "c"] and prefixes.nbytes <= 2 * size, prefixes.stats()
    nothing_kept = PrefixCache(tiny_model, max_bytes=0)
    nothing_kept.head("a")
    assert nothing_kept.stats() == {"contexts": 0, "bytes": 0, "hits": 0, "misses": 1}


@pytest.mark.parametrize("clip", CLIPS)
@pytest.mark.parametrize("on", [True, False], ids=["cache on", "cache off"])
def test_golden_tokens_come_out_with_the_prefix_cache_on_and_off(tiny_model, clip, on):
    golden = load_golden(clip)
    prefix_cache = None if on else PrefixCache.off(tiny_model)  # None: one for the call
    for variant, options in VARIANTS.items():
        expected = golden[f"{variant}_tokens"].tolist()
        result = mq.transcribe(
            AUDIO / f"{clip}.wav", tiny_model, max_new_tokens=len(expected), prefix_cache=prefix_cache, **options
        )
        assert result.token_ids == [expected], f"{clip}/{variant}: tokens differ from the official ones"


@pytest.mark.parametrize("batch_size", [1, 4])
def test_batched_rows_sharing_a_context_take_one_head_and_keep_their_golden_tokens(tiny_model, batch_size):
    rows = [(clip, variant) for clip in CLIPS for variant in VARIANTS]
    audios = [AUDIO / f"{clip}.wav" for clip, _ in rows]
    options = [mq.DecodeOptions(max_new_tokens=12, **VARIANTS[variant]) for _, variant in rows]
    prefixes = PrefixCache(tiny_model)
    results = mq.transcribe_batch(audios, tiny_model, batch_size=batch_size, options=options, prefix_cache=prefixes)
    for (clip, variant), result in zip(rows, results):
        assert result.token_ids == [load_golden(clip)[f"{variant}_tokens"][:12].tolist()], f"{clip}/{variant}"
    assert (prefixes.misses, prefixes.hits) == (2, len(rows) - 2), "one head per context (two contexts)"


@pytest.mark.parametrize("context", CONTEXTS.values(), ids=CONTEXTS.keys())
def test_a_file_of_many_chunks_computes_its_head_once_and_keeps_its_tokens(tiny_model, context):
    audio = np.tile(mq.load_audio(AUDIO / "long.wav"), 2)  # 31 s: 6 chunks of at most 6 s
    off = mq.transcribe(
        audio, tiny_model, context=context, max_new_tokens=8, chunk_seconds=6, prefix_cache=PrefixCache.off(tiny_model)
    )
    for batch_size in (1, 3):
        prefixes = PrefixCache(tiny_model)
        on = mq.transcribe(
            audio, tiny_model, context=context, max_new_tokens=8, chunk_seconds=6, batch_size=batch_size,
            prefix_cache=prefixes,
        )  # fmt: skip
        assert len(on.segments) >= 6 and on.token_ids == off.token_ids, f"batch {batch_size}: tokens differ"
        assert (prefixes.misses, prefixes.hits) == (1, len(on.segments) - 1), "one head for all chunks"


@pytest.mark.parametrize("kv_reuse", [True, False], ids=["kv reuse", "no kv reuse"])
@pytest.mark.parametrize("context", CONTEXTS.values(), ids=CONTEXTS.keys())
def test_streaming_gives_the_same_updates_with_the_prefix_cache_on_and_off(tiny_model, context, kv_reuse):
    audio = speech_with_pauses()
    tuning, options = StreamingTuning(kv_reuse=kv_reuse), mq.DecodeOptions(None, context, 8)
    updates = {}
    for on in (True, False):
        prefix_cache = None if on else PrefixCache.off(tiny_model)
        stream = mq.StreamingTranscriber(tiny_model, options, tuning=tuning, prefix_cache=prefix_cache)
        fed = [stream.feed(audio[i : i + SR]) for i in range(0, len(audio), SR)] + [stream.finish()]
        updates[on] = [(u.committed, u.tentative) for u in fed]
    assert updates[True][-1][0], "the session must produce text"
    assert updates[True] == updates[False], "streaming text differs with the prefix cache"


@pytest.mark.parametrize("context", CONTEXTS.values(), ids=CONTEXTS.keys())
def test_a_live_session_gives_the_same_events_with_the_prefix_cache_on_and_off(tiny_model, context):
    """Partials from the streaming engine, finals from transcribe: both start from the one head."""
    audio = speech_with_pauses()
    options = mq.DecodeOptions(context=context, max_new_tokens=6)
    events = {}
    for on in (True, False):
        clock = FakeClock()
        prefix_cache = None if on else PrefixCache.off(tiny_model)
        live = mq.LiveSession(tiny_model, options, prefix_cache=prefix_cache, clock=clock)
        got = []
        for i in range(0, len(audio), 1600):
            clock.now = (i + 1600) / SR
            got += live.feed(audio[i : i + 1600], captured_at=clock.now)
        got += live.finish()
        events[on] = [(e.type, e.text, e.start, e.end) for e in got]
        if on:
            assert live.engine.prefixes.misses == 1, "every utterance and partial takes the one head"
    commits = [e for e in events[True] if e[0] == "commit"]
    assert len(commits) == 3 and all(text for _, text, _, _ in commits), commits
    assert any(e[0] == "partial" for e in events[True]), "no partials"
    assert events[True] == events[False], "live events differ with the prefix cache"
