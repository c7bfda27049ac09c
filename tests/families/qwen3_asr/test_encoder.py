"""Audio encoder: token counts, chunking quirks and window independence on a tiny random model."""

import mlx.core as mx
import numpy as np
import pytest

from mlx_qwen3asr.families.qwen3_asr import encoder
from mlx_qwen3asr.families.qwen3_asr import two_streams as encoder_on_two_streams
from mlx_qwen3asr.families.qwen3_asr.encoder import n_audio_tokens, windowed_attention
from mlx_qwen3asr.runtime.two_streams import side_stream, two_streams


@pytest.mark.parametrize(
    "frames, tokens",
    [(1000, 130), (6000, 780), (100, 13), (99, 13), (50, 7), (1, 1), (1250, 163), (337, 44)],
)
def test_token_count_follows_the_official_output_length_formula(frames, tokens):
    assert n_audio_tokens(frames) == tokens, f"{frames} frames should give {tokens} audio tokens"


def test_encoder_gives_one_feature_per_audio_token(tiny_model):
    for frames in (63, 100, 337, 1250):
        mel = mx.random.normal((frames, 128), key=mx.random.key(frames))
        out = tiny_model.encode(mel)
        assert out.shape == (n_audio_tokens(frames), 64), f"wrong shape for {frames} frames: {out.shape}"


def test_windows_of_800_frames_never_see_each_other(tiny_model):
    mel = mx.random.normal((2000, 128), key=mx.random.key(1))
    whole = np.array(tiny_model.encode(mel))
    parts = [np.array(tiny_model.encode(mel[i : i + 800])) for i in (0, 800)]
    np.testing.assert_allclose(whole[:104], parts[0], atol=1e-5, err_msg="first window depends on later audio")
    np.testing.assert_allclose(whole[104:208], parts[1], atol=1e-5, err_msg="second window depends on others")


def test_last_partial_chunk_is_zero_padded_when_other_chunks_exist(tiny_model):
    """The official batch pads the tail chunk to 100 frames, which changes its last token."""
    mel = mx.random.normal((150, 128), key=mx.random.key(2))
    padded = mx.concatenate([mel, mx.zeros((50, 128))])
    tail_alone = np.array(tiny_model.audio_tower.embed_chunks(mel))[13:]
    tail_padded = np.array(tiny_model.audio_tower.embed_chunks(padded))[13:20]
    np.testing.assert_allclose(tail_alone, tail_padded, atol=1e-6, err_msg="tail chunk must see zero padding")


def test_conv_stem_batches_give_the_unbatched_features_and_keep_memory_flat(tiny_model, monkeypatch):
    mel = mx.random.normal((12050, 128), key=mx.random.key(3))  # 121 chunks, the last one partial
    mx.eval(tiny_model.encode(mel[:300]))
    mx.clear_cache()
    held = mx.get_active_memory()  # arrays other tests keep alive (their models) are not the encoder's
    mx.reset_peak_memory()
    batched = tiny_model.encode(mel)  # 4 x 25 + 21 chunks
    mx.eval(batched)
    batched_peak = mx.get_peak_memory() - held
    monkeypatch.setattr(encoder, "STEM_BATCH_CHUNKS", 1 << 30)
    mx.clear_cache()
    held = mx.get_active_memory()
    mx.reset_peak_memory()
    whole = tiny_model.encode(mel)
    mx.eval(whole)
    assert batched.shape == whole.shape == (n_audio_tokens(12050), 64)
    np.testing.assert_allclose(np.array(batched), np.array(whole), atol=1e-5)
    whole_peak = mx.get_peak_memory() - held
    assert batched_peak < 0.5 * whole_peak, "batches should bound the conv stem's memory"


def test_batched_windows_equal_attention_with_a_block_diagonal_mask():
    n, dim, heads, window = 250, 32, 4, 104
    q, k, v = (mx.random.normal((n, dim), key=mx.random.key(i)) for i in range(3))
    blocks = np.arange(n) // window
    mask = mx.array(blocks[:, None] == blocks[None, :])
    split = lambda x: x.reshape(1, n, heads, -1).transpose(0, 2, 1, 3)
    reference = mx.fast.scaled_dot_product_attention(
        split(q), split(k), split(v), scale=(dim // heads) ** -0.5, mask=mask
    )
    reference = reference.transpose(0, 2, 1, 3).reshape(n, dim)
    np.testing.assert_allclose(np.array(windowed_attention(q, k, v, heads, window)), np.array(reference), atol=1e-5)


def test_the_encoder_in_halves_on_two_streams_gives_the_features_of_one_stream(tiny_model, stream_sides):
    """Heads, feed-forward features and the conv stem's chunks in halves (qwen3_asr/two_streams.py, swapped in
    by load on the CPU): the same products cut by output rows or by chunks; a BLAS may take another
    kernel for a half-width product, so float32 round-off, not always the same bits."""
    mels = [mx.random.normal((frames, 128), key=mx.random.key(frames)) for frames in (1250, 337)]
    sides = stream_sides(encoder_on_two_streams)
    with two_streams(False):
        single = [np.array(x) for x in tiny_model.audio_tower.encode_many(mels)]
    assert not sides, "two_streams(False) around the call keeps every layer whole, on one stream"
    sides.clear()
    split = [np.array(x) for x in tiny_model.audio_tower.encode_many(mels)]  # its own two_streams()
    assert sides and all(sides), "the encoder's own block splits every layer (the test machine has 2+ cores)"
    for one, two in zip(single, split):
        np.testing.assert_allclose(two, one, rtol=0, atol=1e-5 * np.abs(one).max())
    assert side_stream() is None, "the block ends with the call"
