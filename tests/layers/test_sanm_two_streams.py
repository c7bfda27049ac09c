"""The SAN-M encoder on two CPU streams (layers/sanm_two_streams.py): a long input (SPLIT_FRAMES or more) is
cut over the streams and gives what one stream gives, to float32 round-off, with the same CTC ids; a short one
runs whole (the joins would cost more than the split saves)."""

import mlx.core as mx
import numpy as np
import pytest

from mlx_qwen3asr.layers import sanm_two_streams
from mlx_qwen3asr.runtime import two_streams
from mlx_qwen3asr.testing.signals import noise

pytestmark = pytest.mark.skipif(not two_streams._can_split(), reason="two streams need the CPU and 2+ cores")


def test_the_loader_swaps_the_two_stream_encoder_in(sensevoice):
    assert type(sensevoice.encoder) is sanm_two_streams.TwoStreamSanmEncoder
    layer = sensevoice.encoder.layers[1]
    assert type(layer.self_attn) is sanm_two_streams.TwoStreamSanmAttention
    assert type(layer.mlp) is sanm_two_streams.TwoStreamSanmMLP
    assert type(layer.self_attn.fsmn) is sanm_two_streams.TapsFSMN, "the FSMN as strided taps on the CPU"


@pytest.mark.parametrize("seconds, split", [(3.0, False), (18.0, True)])
def test_a_long_input_is_cut_over_the_streams_and_gives_what_one_stream_gives(sensevoice, stream_sides, seconds, split):
    features = sensevoice.features(noise(seconds, -20.0))
    assert (features.shape[0] + 4 >= sanm_two_streams.SPLIT_FRAMES) is split
    sides = stream_sides(sanm_two_streams)
    cut = np.array(sensevoice.encode(features))
    assert bool(sides) is split and all(sides), f"{seconds} s: the feed-forwards were {'cut' if split else 'whole'}"
    sides.clear()
    with two_streams.two_streams(False):
        whole = np.array(sensevoice.encode(features))
    assert not sides, "two_streams(False) keeps everything on one stream"
    np.testing.assert_allclose(cut, whole, rtol=0, atol=1e-4 * np.abs(whole).max())
    ids = [np.argmax(np.array(sensevoice.log_probs(mx.array(x))), axis=-1) for x in (cut, whole)]
    np.testing.assert_array_equal(*ids)
