"""The ResNet's convolution as one product per tap (embedding.conv), and the windows cut in halves over the
CPU's two streams (pipeline.py): the same numbers as one plain computation, to float32 round-off."""

import mlx.core as mx
import numpy as np
import pytest

from mlx_qwen3asr.families.pyannote import pipeline
from mlx_qwen3asr.families.pyannote.embedding import conv
from mlx_qwen3asr.runtime import two_streams as streams


@pytest.mark.parametrize("kernel, stride", [(3, 1), (3, 2), (1, 2), (1, 1)])
@pytest.mark.parametrize("shape", [(2, 9, 14, 5), (1, 8, 13, 1), (3, 7, 7, 4)])  # odd and even sides, one channel
def test_conv_by_taps_is_mlx_conv2d(shape, kernel, stride):
    x = mx.random.normal(shape, key=mx.random.key(1))
    cout = 6
    weight = mx.random.normal((cout, kernel, kernel, shape[-1]), key=mx.random.key(2))  # mx.conv2d's layout
    bias = mx.random.normal((cout,), key=mx.random.key(3))
    expected = mx.conv2d(x, weight, stride=stride, padding=kernel // 2) + bias
    taps = weight.transpose(1, 2, 3, 0).reshape(kernel * kernel, shape[-1], cout)
    got = conv(x, taps, bias, stride)
    assert got.shape == expected.shape
    np.testing.assert_allclose(np.array(got), np.array(expected), rtol=1e-5, atol=1e-5)


def test_embeddings_on_two_streams_are_those_of_one(diarizer, monkeypatch, stream_sides):
    wave = np.random.default_rng(0).standard_normal(16000 * 12).astype(np.float32) * 0.1  # 3 windows
    segmentation = np.ones((3, 589, 3), np.float32)
    segmentation[:, :, 2] = 0
    sides = stream_sides(streams)
    monkeypatch.setattr(pipeline, "EMBEDDING_BATCH", 3)  # an odd batch: 2 windows here, 1 on the side stream
    split = diarizer.embeddings(wave, segmentation)
    assert sides and all(sides), "every batch of two or more windows is cut across the streams (2+ cores)"
    sides.clear()
    with streams.two_streams(False):
        single = diarizer.embeddings(wave, segmentation)
    assert not sides, "two_streams(False) keeps the whole batch on one stream"
    np.testing.assert_allclose(split, single, rtol=0, atol=1e-5 * np.nanmax(np.abs(single)))
