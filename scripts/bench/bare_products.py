"""The limit for overhead.py: the bare matrix products a stage must do, timed as one graph.

    decode step: every decoder linear for 1 token + the tied LM head for 1 position
    prefill:     every decoder linear for the prompt's tokens + the LM head for the last position
    encoder:     the conv stem as im2col GEMMs + every encoder linear, for the clip's audio tokens

Same weights and dtype as the model (a quantized layer counts as its quantized product); random
inputs of the right shapes, since the products' cost does not depend on the values.
"""

import statistics
import time

import mlx.core as mx
import mlx.nn as nn

from mlx_qwen3asr.families.qwen3_asr.encoder import n_audio_tokens

Product = tuple[mx.array, nn.Module]  # (input rows, a layer whose `weight` multiplies them)


def bare_product(x: mx.array, layer: nn.Module) -> mx.array:
    """x times the layer's weight, transposed, and nothing else (no bias, no activation)."""
    if hasattr(layer, "scales"):  # nn.QuantizedLinear / nn.QuantizedEmbedding
        return mx.quantized_matmul(
            x, layer.weight, layer.scales, layer.biases, transpose=True, group_size=layer.group_size, bits=layer.bits
        )
    weight = layer.weight
    return x @ weight.reshape(weight.shape[0], -1).T  # conv weights [out, kh, kw, in] flattened


def bare_time(products: list[Product], runs: int, warmup: int) -> float:
    """Median seconds of all the products, evaluated together as one graph."""
    mx.eval([x for x, _ in products])
    for _ in range(warmup):
        mx.eval([bare_product(x, layer) for x, layer in products])
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        mx.eval([bare_product(x, layer) for x, layer in products])
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def merged_or(module: nn.Module, merged: str, *separate: str) -> list[nn.Module]:
    """The module's one merged product (the GPU path's, layers/gpu.py) or its separate ones."""
    return [module[merged]] if merged in module else [module[name] for name in separate]


def decoder_products(model, n_tokens: int) -> list[Product]:
    text, dtype = model.args.text, model.dtype
    x_h = mx.random.normal((n_tokens, text.hidden_size)).astype(dtype)
    x_o = mx.random.normal((n_tokens, text.num_attention_heads * text.head_dim)).astype(dtype)
    x_i = mx.random.normal((n_tokens, text.intermediate_size)).astype(dtype)
    products = []
    for layer in model.model.layers:
        attn, mlp = layer.self_attn, layer.mlp
        products += [(x_h, linear) for linear in merged_or(attn, "qkv_proj", "q_proj", "k_proj", "v_proj")]
        products += [(x_o, attn.o_proj), (x_i, mlp.down_proj)]
        products += [(x_h, linear) for linear in merged_or(mlp, "gate_up_proj", "gate_proj", "up_proj")]
    head = model.model.embed_tokens if text.tie_word_embeddings else model.lm_head
    return products + [(x_h[-1:], head)]


def encoder_products(model, seconds: float) -> list[Product]:
    tower, args = model.audio_tower, model.audio_tower.args
    frames = int(seconds * 100)
    chunks = -(-frames // args.chunk_frames)
    n_tokens = n_audio_tokens(frames, args.chunk_frames, args.tokens_per_chunk)
    rand = lambda *shape: mx.random.normal(shape).astype(model.dtype)  # noqa: E731
    products, height, width, channels_in = [], args.num_mel_bins, args.chunk_frames, 1
    for conv in (tower.conv2d1, tower.conv2d2, tower.conv2d3):
        height, width = (height - 1) // 2 + 1, (width - 1) // 2 + 1
        products.append((rand(chunks * height * width, 9 * channels_in), conv))
        channels_in = conv.weight.shape[0]
    products.append((rand(chunks * width, tower.conv_out.weight.shape[1]), tower.conv_out))
    x, x_ffn = rand(n_tokens, args.d_model), rand(n_tokens, args.encoder_ffn_dim)
    for layer in tower.layers:
        attn = layer.self_attn
        products += [(x, linear) for linear in merged_or(attn, "qkv_proj", "q_proj", "k_proj", "v_proj")]
        products += [(x, attn.out_proj)]
        products += [(x, layer.fc1), (x_ffn, layer.fc2)]
    return products + [(x, tower.proj1), (x, tower.proj2)]


def limits(model, prompt_seconds: float, prefill_tokens: int, runs: int, warmup: int) -> dict:
    return {
        "decode_ms_per_token": 1000 * bare_time(decoder_products(model, 1), runs, warmup),
        "prefill": bare_time(decoder_products(model, prefill_tokens), runs, warmup),
        "encoder": bare_time(encoder_products(model, prompt_seconds), runs, warmup),
    }
