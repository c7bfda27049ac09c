"""The device picks the path once: the CPU's tactics on the CPU, the GPU path on a GPU, never both.

    load() -> gpu_path() decides, by MLX's default device, at load time
        CPU: two CPU streams and the BLAS router (runtime/two_streams.py, runtime/blas.py), the
             integer-trick activations and softmax (layers/activations.py, layers/attention.py), the
             conv stem evaluated between batches (bounded CPU memory): the model as written
        GPU: the GPU path swapped in (layers/gpu.py, families/qwen3_asr/gpu.py): merged projections, MLX's fused
             kernels (mx.fast.rms_norm, rope, scaled_dot_product_attention in a form they accept),
             compiled activations, no host synchronisation inside an encode; float32 without TF32

Nothing else asks the device which path to take; the swapped-in modules simply are the path.
"""

import os

import mlx.core as mx

# MLX reads this variable once per process, at its first float32 product on a GPU (a static in
# mlx/utils.h, env::enable_tf32), and has no API for it: it must be set before any such product.
TF32_VARIABLE = "MLX_ENABLE_TF32"


def gpu_path() -> bool:
    """Whether this process runs the GPU path: MLX's default device is a GPU (Metal or CUDA)."""
    return mx.default_device() != mx.cpu


def exact_float32(dtype: mx.Dtype) -> None:
    """float32 asked on a GPU means float32: TF32 products off (MLX's default is on for float32 on
    CUDA and on Apple GPUs with neural accelerators). TF32 keeps 10 bits of mantissa in the products'
    inputs instead of 23: on an H200 one of six golden token sequences diverged with it on, none with
    it off. Half precision is untouched (the variable changes float32 products only). A value the
    user set stands."""
    if dtype == mx.float32 and gpu_path():
        os.environ.setdefault(TF32_VARIABLE, "0")
