"""The one place the device picks the path (runtime/device.py says what each path is): load() calls
`install_path` once a model's weights are in, and nothing later asks the device again.

    CPU: the two-stream layers swapped in (model/two_stream_layers.py); the rest is the model as written
    GPU: the decoder's GPU path (layers/gpu.py) and Qwen3-ASR's encoder's (qwen3asr/gpu.py) swapped in,
         their merged products evaluated now (the separate ones are then freed)
"""

import mlx.core as mx
import mlx.nn as nn

from ..layers import gpu as decoder_gpu
from ..model import two_stream_layers
from ..qwen3asr import gpu as encoder_gpu
from ..runtime.device import gpu_path


def install_path(model: nn.Module) -> nn.Module:
    """Swap this device's path into a loaded `model` (in place); returns it."""
    if not gpu_path():
        return two_stream_layers.install(model)
    decoder_gpu.install(model)
    encoder_gpu.install(model)
    mx.eval(model.parameters())
    return model
