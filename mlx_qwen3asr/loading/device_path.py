"""The one place the device picks the path (runtime/device.py says what each path is): load() calls
`install_path` once a model's weights are in, and nothing later asks the device again.

    CPU: the two-stream layers swapped in (layers/two_stream_layers.py, with the family's `cpu_swaps`);
         the rest is the model as written
    GPU: the decoder's GPU path (layers/gpu.py) and the family's (its `gpu_installs`: Qwen3-ASR's encoder,
         families/qwen3_asr/gpu.py) swapped in,
         their merged products evaluated now (the separate ones are then freed)
"""

import mlx.core as mx
import mlx.nn as nn

from ..layers import gpu as decoder_gpu
from ..layers import two_stream_layers
from ..runtime.device import gpu_path


def install_path(model: nn.Module) -> nn.Module:
    """Swap this device's path into a loaded `model` (in place); returns it."""
    if not gpu_path():
        return two_stream_layers.install(model)
    decoder_gpu.install(model)
    for install in getattr(
        model, "gpu_installs", ()
    ):  # the family's own (Qwen3-ASR's encoder: families/qwen3_asr/gpu.py)
        install(model)
    mx.eval(model.parameters())
    return model
