"""The GPU path's dispatches, counted on this CPU from exported graphs (mlx_qwen3asr/testing/dispatches.py).

The GPU path is swapped into a random 0.6B-sized model here by hand (on a GPU, load does it): the graphs
of one decode step and of a 10 s and a 60 s encode are built (never run) with one and with two layers,
and their difference is one layer's count. Before the GPU path (the model as written, float16) one
decoder layer dispatched 28 kernels (66 primitives) and one encoder layer 19 (51), with the conv stem
evaluated between batches inside an encode.
"""

import json

import mlx.core as mx
import numpy as np
import pytest

from mlx_qwen3asr.families.qwen3_asr import gpu as encoder_gpu
from mlx_qwen3asr.families.qwen3_asr.config import ModelArgs
from mlx_qwen3asr.families.qwen3_asr.model import Qwen3ASR
from mlx_qwen3asr.layers import gpu as decoder_gpu
from mlx_qwen3asr.layers.cache import KVCache
from mlx_qwen3asr.testing.dispatches import fused_ops_as_one, graph
from mlx_qwen3asr.testing.random_checkpoint import FIXTURES_DIR

DECODER_LAYER_DISPATCHES = 18  # at most, per decoder layer for one token (issue 46)
ENCODER_LAYER_DISPATCHES = 14  # at most, per encoder layer


def gpu_model(decoder_layers: int, encoder_layers: int) -> Qwen3ASR:
    """The 0.6B sizes (a small vocabulary: the head is not a layer), float16, the GPU path installed."""
    config = json.loads((FIXTURES_DIR / "config.json").read_text())
    config["thinker_config"]["text_config"].update(num_hidden_layers=decoder_layers, vocab_size=1024)
    config["thinker_config"]["audio_config"]["encoder_layers"] = encoder_layers
    model = Qwen3ASR(ModelArgs.from_dict(config))
    model.set_dtype(mx.float16)
    decoder_gpu.install(model)
    encoder_gpu.install(model)
    mx.eval(model.parameters())
    return model


def decode_step_graph(layers: int):
    """One token at position 300 of a one-row cache whose storage holds 512 slots."""
    model = gpu_model(layers, 1)
    text = model.args.text
    cache = [KVCache() for _ in range(layers)]
    for layer in cache:
        layer.keys = mx.zeros((1, text.num_key_value_heads, 512, text.head_dim), mx.float16)
        layer.values = mx.zeros_like(layer.keys)
        layer.offset = 300
        mx.eval(layer.keys, layer.values)
    embedding = mx.zeros((1, 1, text.hidden_size), mx.float16)
    with fused_ops_as_one() as calls:
        return graph(model.decode_step()(embedding, cache)), calls


def encode_graph(layers: int, seconds: int):
    """An encode of `seconds` of log-mel; the mel is a StopGradient of an evaluated array, so that node
    is in the graph only if nothing inside the encode evaluated (waited for) what depends on it."""
    model = gpu_model(1, layers)
    mel = mx.array(np.zeros((seconds * 100, 128), np.float16))
    with fused_ops_as_one() as calls:
        return graph(model.encode(mx.stop_gradient(mel))), calls


def test_one_decode_step_dispatches_at_most_18_kernels_per_decoder_layer_with_fused_attention():
    (one, _), (two, calls) = decode_step_graph(1), decode_step_graph(2)
    per_layer = two.dispatches - one.dispatches
    assert per_layer <= DECODER_LAYER_DISPATCHES, f"{per_layer} dispatches per decoder layer: {two.names - one.names}"
    assert [(c.key_shape[2], c.mask, c.fused) for c in calls] == [(301, "none", True)] * 2, (
        f"each layer should attend once to the 301 tokens held, with no mask (MLX's fused decode kernel): {calls}"
    )


@pytest.mark.parametrize("seconds", [10, 60])
def test_an_encode_dispatches_at_most_14_kernels_per_encoder_layer_without_host_waits(seconds):
    (one, _), (two, calls) = encode_graph(1, seconds), encode_graph(2, seconds)
    per_layer = two.dispatches - one.dispatches
    assert per_layer <= ENCODER_LAYER_DISPATCHES, f"{per_layer} dispatches per encoder layer: {two.names - one.names}"
    windows = -(-seconds * 13 // 104)
    assert [c.query_shape[:3] for c in calls] == [(windows, 14, 104)] * 2, f"one attention call per layer: {calls}"
    assert two.names["StopGradient"] == 1, "something inside the encode waited for the GPU (mx.eval or .item())"
    assert two.names["Convolution"] == 3, "the conv stem should run as one batch of chunks"
