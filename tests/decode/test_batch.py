"""Batched transcription gives every row exactly the tokens it gets alone (float32, CPU, tiny model).

Rows differ in prompt length (short next to long clips, per-row context and forced language) and
finish at different steps (per-row budgets, end-of-text), and they still decode to the official
goldens and to their batch_size=1 tokens.
"""

import os

import mlx.core as mx
import numpy as np
import pytest
from goldens import AUDIO, CLIPS, VARIANTS, load_golden

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.generate import StopRules, decode, decode_batch
from mlx_qwen3asr.families.recogniser import encode_audio, encode_audios
from mlx_qwen3asr.layers.cache import KVCache, batch_cache

ROWS = [(clip, variant) for clip in CLIPS for variant in VARIANTS]
BUDGETS = [24, 5, 17, 1, 24, 9, 2, 20, 13, 24, 3, 11]  # rows stop at different steps


@pytest.fixture(scope="module")
def goldens() -> dict:
    return {clip: load_golden(clip) for clip in CLIPS}


@pytest.fixture(scope="module")
def long_clip() -> np.ndarray:
    """63 s of speech with pauses: 19 chunks of at most 6 s."""
    return np.tile(mq.load_audio(AUDIO / "long.wav"), 4)


@pytest.mark.parametrize("batch_size", [2, 3, 8])
def test_golden_rows_with_their_own_context_language_and_budget_decode_to_the_official_tokens(
    tiny_model, goldens, batch_size
):
    audios = [AUDIO / f"{clip}.wav" for clip, _ in ROWS]
    options = [mq.DecodeOptions(max_new_tokens=b, **VARIANTS[v]) for (_, v), b in zip(ROWS, BUDGETS)]
    results = mq.transcribe_batch(audios, tiny_model, batch_size=batch_size, options=options)
    for (clip, variant), budget, result in zip(ROWS, BUDGETS, results):
        expected = goldens[clip][f"{variant}_tokens"][:budget].tolist()
        assert result.token_ids == [expected], f"{clip}/{variant} at batch {batch_size} differs from the golden"


@pytest.mark.parametrize("batch_size", [2, 3, 8])
def test_a_clip_of_nineteen_chunks_gives_the_same_segments_at_any_batch_size(tiny_model, long_clip, batch_size):
    alone = mq.transcribe(long_clip, tiny_model, max_new_tokens=16, chunk_seconds=6)
    batched = mq.transcribe(long_clip, tiny_model, max_new_tokens=16, chunk_seconds=6, batch_size=batch_size)
    assert len(alone.segments) >= 10, f"want at least 10 chunks, got {len(alone.segments)}"
    assert batched.token_ids == alone.token_ids, f"batch {batch_size}: per-chunk tokens differ"
    assert [(s.start, s.end) for s in batched.segments] == [(s.start, s.end) for s in alone.segments]
    assert batched.text == alone.text and batched.language == alone.language


def test_the_same_chunk_eight_times_gives_eight_identical_rows_equal_to_it_alone(tiny_model, speech):
    alone = mq.transcribe(speech, tiny_model, max_new_tokens=12).token_ids
    rows = mq.transcribe_batch([speech] * 8, tiny_model, options=mq.DecodeOptions(max_new_tokens=12), batch_size=8)
    assert [r.token_ids for r in rows] == [alone] * 8


def _prompt(model, n: int, seed: int) -> mx.array:
    return model.embed(mx.array(np.random.default_rng(seed).integers(0, 151000, size=n)))


def test_a_row_decodes_the_same_next_to_longer_rows_and_rows_that_stop_at_end_of_text(tiny_model):
    prompts = [_prompt(tiny_model, n, seed) for n, seed in ((9, 1), (40, 2), (23, 3))]
    free = [decode(tiny_model, p, tiny_model.make_cache(), StopRules((), 16)).token_ids for p in prompts]
    eos = [(), (free[1][2],), (free[2][6],)]  # row 1 stops after 2 tokens, row 2 after 6
    batched = decode_batch(
        tiny_model, prompts, [tiny_model.make_cache() for _ in prompts], [StopRules(e, 16) for e in eos]
    )
    assert batched[0].token_ids == free[0] and batched[0].finish_reason == "length"
    for row in (1, 2):
        stop = free[row].index(eos[row][0])
        assert batched[row].token_ids == free[row][:stop], f"row {row} must stop at its own end-of-text"
        assert batched[row].finish_reason == "stop"


def test_a_batch_cache_hides_each_rows_padding_and_drops_shared_padding_when_rows_leave():
    rows = []
    for length in (3, 5, 4):
        cache = KVCache()
        cache.update_and_fetch(mx.ones((1, 2, length, 4)), mx.ones((1, 2, length, 4)))
        rows.append([cache])
    (layer,) = batch_cache(rows)
    assert layer.offset.tolist() == [3, 5, 4], "each row's next RoPE position is its own length"
    visible = layer.mask(1)[:, 0, 0].tolist()
    assert visible == [[False, False, True, True, True, True], [True] * 6, [False, True, True, True, True, True]]
    layer.filter(mx.array([0, 2]))
    assert layer.length == 4 and layer.left_padding.tolist() == [1, 0], "the shared padding column must go"


def test_clips_encoded_together_get_the_features_each_gets_alone(tiny_model):
    rng = np.random.default_rng(5)
    seconds = (0.7, 12.3, 2.0, 0.55, 8.0, 0.7)  # one partial chunk, a long tail, exact chunks, ...
    waves = [(0.1 * rng.standard_normal(int(s * 16000))).astype(np.float32) for s in seconds]
    for wave, together in zip(waves, encode_audios(tiny_model, waves)):
        alone = encode_audio(tiny_model, wave)
        assert together.shape == alone.shape
        np.testing.assert_allclose(np.array(together), np.array(alone), atol=1e-5)


def test_per_input_options_must_match_the_number_of_inputs(tiny_model, speech):
    with pytest.raises(ValueError, match="options: got 1 values for 2 inputs"):
        mq.transcribe_batch([speech, speech], tiny_model, options=[mq.DecodeOptions("English")])
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        mq.transcribe_batch([speech], tiny_model, batch_size=0)


def test_progress_reports_every_second_of_audio_once(tiny_model, long_clip, speech):
    done = []
    mq.transcribe_batch(
        [long_clip, speech], tiny_model, options=mq.DecodeOptions(max_new_tokens=2), chunk_seconds=6, batch_size=8,
        on_progress=done.append,
    )  # fmt: skip
    assert len(done) == 3, f"20 chunks in batches of 8 report three times, got {done}"
    assert sum(done) == pytest.approx((len(long_clip) + len(speech)) / 16000)


def test_each_segment_is_reported_once_in_order_per_input_before_the_batch_call_returns(tiny_model, long_clip, speech):
    reported, progress = [], []
    results = mq.transcribe_batch(
        [long_clip, speech], tiny_model, options=mq.DecodeOptions(max_new_tokens=2), chunk_seconds=6, batch_size=8,
        on_progress=lambda seconds: progress.append(len(reported)),
        on_segment=lambda i, segment: reported.append((i, segment)),
    )  # fmt: skip
    for i, result in enumerate(results):
        assert [s for j, s in reported if j == i] == result.segments, f"input {i}: not its segments, in order"
    total = len(reported)
    assert total > 16 and progress == [8, 16, total], "each batch's segments are reported as the batch finishes"


@pytest.mark.skipif(
    not os.environ.get("MLX_QWEN3ASR_SLOW_TESTS"), reason="2 hours of audio: set MLX_QWEN3ASR_SLOW_TESTS=1"
)
def test_two_hours_of_audio_take_no_more_memory_than_ten_minutes(tiny_model):
    rng = np.random.default_rng(0)
    hours = (0.05 * rng.standard_normal(2 * 3600 * 16000)).astype(np.float32)
    peaks = {}
    for seconds in (600, 7200):
        mx.clear_cache()
        mx.reset_peak_memory()
        mq.transcribe(hours[: seconds * 16000], tiny_model, max_new_tokens=8, batch_size=8)
        peaks[seconds] = mx.get_peak_memory()
    assert peaks[7200] <= 1.1 * peaks[600], f"peak MLX memory grew with length: {peaks}"
