"""The GPU path computes what the model as written computes: swapped into a tiny random model on this
CPU (MLX's fused operations run their fallbacks here), its decode steps, prefill and encodes match the
plain model's to float32 round-off (different operation order: merged products, fused RoPE)."""

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest

from mlx_qwen3asr.families.qwen3_asr import gpu as encoder_gpu
from mlx_qwen3asr.families.qwen3_asr.config import ModelArgs
from mlx_qwen3asr.families.qwen3_asr.model import Qwen3ASR
from mlx_qwen3asr.layers import gpu as decoder_gpu
from mlx_qwen3asr.layers.decoder import Attention
from mlx_qwen3asr.loading.device_path import install_path
from mlx_qwen3asr.runtime.device import gpu_path
from mlx_qwen3asr.testing.random_checkpoint import tiny_config

# float32 round-off of sums taken in another order, on activations of size ~1; on a GPU float32 products may
# run as TF32 (unless MLX_ENABLE_TF32=0 was set before the first: runtime/device.py), 10 mantissa bits
TOLERANCE = 1e-2 if gpu_path() else 2e-5


@pytest.fixture(scope="module")
def models() -> tuple[Qwen3ASR, Qwen3ASR]:
    """(plain, GPU path) with the same random weights."""
    mx.random.seed(0)
    plain = Qwen3ASR(ModelArgs.from_dict(tiny_config()))
    gpu = Qwen3ASR(ModelArgs.from_dict(tiny_config()))
    gpu.update(plain.parameters())
    decoder_gpu.install(gpu)
    encoder_gpu.install(gpu)
    mx.eval(plain.parameters(), gpu.parameters())
    return plain, gpu


def close(a: mx.array, b: mx.array) -> float:
    return float(mx.abs(a - b).max())


def test_the_gpu_path_replaces_the_layers_and_the_step(models):
    _, gpu = models
    assert all(type(layer.self_attn) is decoder_gpu.GpuAttention for layer in gpu.model.layers)
    assert all(type(layer.mlp) is decoder_gpu.GpuMLP for layer in gpu.model.layers)
    assert type(gpu.audio_tower) is encoder_gpu.GpuAudioEncoder
    assert type(gpu.decode_step()) is decoder_gpu.GpuDecodeStep


def test_prefill_and_decode_steps_match_the_plain_model(models):
    plain, gpu = models
    prompt = mx.random.normal((1, 37, plain.args.text.hidden_size))
    caches = plain.make_cache(), gpu.make_cache()
    first = [model(prompt, cache) for model, cache in zip(models, caches)]
    assert close(*first) < TOLERANCE, "prefill logits differ"
    for i in range(5):  # the plain model through its compiled step, the GPU path through its own
        token = mx.random.normal((1, 1, plain.args.text.hidden_size))
        steps = [model.decode_step()(token, cache) for model, cache in zip(models, caches)]
        assert close(*steps) < TOLERANCE, f"step {i} logits differ"
    assert caches[0][0].offset == caches[1][0].offset == 42


@pytest.mark.parametrize("frames", [[1000], [1700], [800], [800, 1600], [230, 1000, 1370]])
def test_encodes_match_the_plain_encoder_with_padded_windows(models, frames):
    plain, gpu = models
    mels = [mx.random.normal((n, 128)) for n in frames]
    for ours, theirs in zip(gpu.encode_many(mels), plain.encode_many(mels)):
        assert ours.shape == theirs.shape
        assert close(ours, theirs) < TOLERANCE, f"encoder outputs differ for {frames} frames"


def test_encode_tokens_takes_the_window_groups_of_the_streaming_cache(models):
    plain, gpu = models
    tokens = mx.random.normal((2 * 104 + 50, plain.args.audio.d_model))
    groups = [(2, 104), (1, 50)]
    assert (
        close(gpu.audio_tower.encode_tokens(tokens, groups), plain.audio_tower.encode_tokens(tokens, groups))
        < TOLERANCE
    )


@pytest.mark.skipif(gpu_path(), reason="the CPU's side")
def test_on_the_cpu_the_path_installed_at_load_is_the_cpu_one():
    model = Qwen3ASR(ModelArgs.from_dict(tiny_config()))
    install_path(model)
    assert mx.default_device() == mx.cpu
    assert all(isinstance(layer.self_attn, Attention) for layer in model.model.layers), "the GPU path ran on the CPU"
    assert "q_proj" in model.model.layers[0].self_attn, "the checkpoint's projections stay separate on the CPU"
    assert not isinstance(model.audio_tower, encoder_gpu.GpuAudioEncoder)


@pytest.mark.skipif(not gpu_path(), reason="needs MLX on a GPU (scripts/gpu_check.sh)")
def test_on_a_gpu_the_path_installed_at_load_is_the_gpu_one():
    model = Qwen3ASR(ModelArgs.from_dict(tiny_config()))
    install_path(model)
    assert all(type(layer.self_attn) is decoder_gpu.GpuAttention for layer in model.model.layers)
    assert type(model.audio_tower) is encoder_gpu.GpuAudioEncoder, "the family's GPU path (its gpu_installs)"
    assert type(model.decode_step()) is decoder_gpu.GpuDecodeStep


def test_quantized_projections_merge_when_quantized_alike():
    a, b = nn.QuantizedLinear.from_linear(nn.Linear(128, 64)), nn.QuantizedLinear.from_linear(nn.Linear(128, 32))
    x = mx.array(np.random.default_rng(0).normal(size=(3, 128)).astype(np.float32))
    joined = decoder_gpu.merged([a, b])
    assert close(joined(x), mx.concatenate([a(x), b(x)], axis=-1)) == 0.0
    eight = nn.QuantizedLinear.from_linear(nn.Linear(128, 32), bits=8)
    assert decoder_gpu.merged([a, eight]) is None, "differently quantized products must stay separate"


def test_a_quantized_model_takes_the_gpu_path_with_the_same_results():
    """As the app's 4-bit recipe on a GPU: quantized q/k/v and gate/up merge, and compute the same."""

    def quantized() -> Qwen3ASR:
        model = Qwen3ASR(ModelArgs.from_dict(tiny_config()))
        nn.quantize(model, 32, 4, class_predicate=lambda path, m: isinstance(m, nn.Linear) and "conv" not in path)
        return model

    mx.random.seed(1)
    plain, gpu = quantized(), quantized()
    gpu.update(plain.parameters())
    decoder_gpu.install(gpu)
    encoder_gpu.install(gpu)
    assert type(gpu.model.layers[0].self_attn.qkv_proj) is nn.QuantizedLinear
    prompt, token = mx.random.normal((1, 20, 64)), mx.random.normal((1, 1, 64))
    caches = plain.make_cache(), gpu.make_cache()
    assert close(plain(prompt, caches[0]), gpu(prompt, caches[1])) < TOLERANCE
    assert close(plain.decode_step()(token, caches[0]), gpu.decode_step()(token, caches[1])) < TOLERANCE
    mel = mx.random.normal((1234, 128))
    assert close(plain.encode(mel), gpu.encode(mel)) < TOLERANCE
