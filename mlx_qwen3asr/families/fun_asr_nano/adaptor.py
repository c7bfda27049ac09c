"""Fun-ASR-Nano adaptor (`multi_modal_projector`): encoder states -> audio embeddings for the decoder.

    [T, 512] -> linear_1 (512 -> 2048) -> ReLU -> linear_2 (2048 -> 1024)
    -> 2 pre-LayerNorm layers (8 heads of 128, MLP 1024 -> 256 -> 1024 ReLU, residual around both,
       no FSMN, no final norm)                                              -> [T, 1024]
No downsampling: one embedding per LFR frame (60 ms), each replacing one <|object_ref_start|>.
"""

import mlx.core as mx
import mlx.nn as nn

from ...layers.sanm import EncoderLayer, relu
from .config import AdaptorArgs


class Adaptor(nn.Module):
    def __init__(self, encoder_dim: int, args: AdaptorArgs):
        super().__init__()
        self.linear_1 = nn.Linear(encoder_dim, args.projector_hidden_size)
        self.linear_2 = nn.Linear(args.projector_hidden_size, args.hidden_size)
        dim = args.hidden_size
        self.layers = [
            EncoderLayer(dim, dim, args.num_attention_heads, args.intermediate_size, args.layer_norm_eps, 0, False)
            for _ in range(args.num_hidden_layers)
        ]

    def __call__(self, x: mx.array) -> mx.array:
        x = self.linear_2(relu(self.linear_1(x)))
        for layer in self.layers:
            x = layer(x)
        return x
