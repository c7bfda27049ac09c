"""The GPU path's dispatches, counted on this CPU from exported graphs (mlx_qwen3asr/testing/dispatches.py).

The GPU path is swapped into a random 0.6B-sized float16 model here by hand (on a GPU, load does it): the
graphs of one decode step and of a 10 s and a 60 s encode are built (never run) with one and with two
layers, and their difference is one layer's count. Before the GPU path (the model as written) one decoder
layer dispatched 28 kernels and one encoder layer 19, with the conv stem evaluated between batches inside
an encode (`python -m scripts.bench.dispatches` prints both sides).
"""

import pytest

from mlx_qwen3asr.testing.dispatches import decode_step_graph, encode_graph, per_layer

DECODER_LAYER_DISPATCHES = 18  # at most, per decoder layer for one token (issue 46)
ENCODER_LAYER_DISPATCHES = 14  # at most, per encoder layer


def test_one_decode_step_dispatches_at_most_18_kernels_per_decoder_layer_with_fused_attention():
    one, two, calls = per_layer(decode_step_graph, gpu=True)
    dispatches = two.dispatches - one.dispatches
    assert dispatches <= DECODER_LAYER_DISPATCHES, f"{dispatches} dispatches per decoder layer: {two.names - one.names}"
    assert [(c.key_shape[2], c.mask, c.fused) for c in calls] == [(301, "none", True)] * 2, (
        f"each layer should attend once to the 301 tokens held, with no mask (MLX's fused decode kernel): {calls}"
    )


@pytest.mark.parametrize("seconds", [10, 60])
def test_an_encode_dispatches_at_most_14_kernels_per_encoder_layer_without_host_waits(seconds):
    one, two, calls = per_layer(lambda model: encode_graph(model, seconds), gpu=True)
    dispatches = two.dispatches - one.dispatches
    assert dispatches <= ENCODER_LAYER_DISPATCHES, f"{dispatches} dispatches per encoder layer: {two.names - one.names}"
    windows = -(-seconds * 13 // 104)
    assert [c.query_shape[:3] for c in calls] == [(windows, 14, 104)] * 2, f"one attention call per layer: {calls}"
    assert two.names["StopGradient"] == 1, "something inside the encode waited for the GPU (mx.eval or .item())"
    assert two.names["Convolution"] == 3, "the conv stem should run as one batch of chunks"


def test_the_count_sees_the_masked_attention_the_gpu_path_removes():
    """The same count on the model as written finds its attention over the whole cache through a mask,
    which MLX's fused decode kernel does not take (so it counts as its fallback), and more dispatches."""
    one, two, calls = per_layer(decode_step_graph, gpu=False)
    assert {c.mask for c in calls} == {"array"} and not any(c.fused for c in calls)
    assert two.dispatches - one.dispatches > DECODER_LAYER_DISPATCHES
