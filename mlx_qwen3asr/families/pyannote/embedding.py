"""WeSpeaker ResNet34 speaker embeddings: a 10 s crop and per-speaker frame masks -> 256-d embeddings.

    crop [160000] x 32768 (int16 scale) -> Kaldi fbank (audio/fbank.py: 25 ms / 10 ms, Hamming, 80
    mels, no dither) -> minus its mean over time                                  [998, 80]
    -> [B, 80 (freq), 998 (time), 1] -> conv3x3 32 + BN + ReLU
    -> layer1 3 BasicBlocks (32) -> layer2 4 (64, stride 2) -> layer3 6 (128, stride 2)
    -> layer4 3 (256, stride 2)                                                   [B, 10, 125, 256]
    -> stats [B, 2560 (channel-major: c * 10 + f), 125]
    -> per mask (589 frames resized to 125 by nearest neighbour): weighted mean and weighted unbiased
       std with pyannote's 1e-8 terms -> [5120] -> seg_1 Linear(5120, 256)       [B, S, 256]

The ResNet does not depend on the masks, so it runs once per crop and the S speakers of the crop share it
(pyannote runs it once per crop and speaker). BatchNorm is in eval mode: folded into the convolutions here.
"""

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ...audio.fbank import fbank

INT16_SCALE = 32768.0
BN_EPS = 1e-5
STATS_EPS = 1e-8
LAYERS = ((32, 3, 1), (64, 4, 2), (128, 6, 2), (256, 3, 2))  # channels, blocks, first stride


def crop_features(crop: np.ndarray) -> np.ndarray:
    """A 16 kHz crop in [-1, 1) -> the embedding model's mean-normalised fbank [frames, 80]."""
    features = fbank(np.asarray(crop, np.float32) * np.float32(INT16_SCALE))
    return features - features.mean(axis=0, keepdims=True)


def conv(x: mx.array, weight: mx.array, bias: mx.array, stride: int) -> mx.array:
    """A zero-padded k x k convolution (k = 1 or 3), x [B, H, W, Cin], weight [k * k, Cin, Cout] -> [B, Ho, Wo, Cout].

    One product per tap, summed in place (addmm), instead of mx.conv2d's im2col: on the CPU that copy of 9x the
    input is most of the time (~20 GFLOP/s against ~130-200 here). Each tap reads a contiguous slice of the
    flattened padded input: on a grid `width` columns wide, tap (dy, dx) is a shift of dy * width + dx rows; the
    outputs that land in the padding columns are cut off at the end. Stride 2 splits the padded input into its
    four (row, column) parities first, so each tap reads one of them with a shift of 0 or 1.
    """
    b, h, w, cin = x.shape
    cout = weight.shape[-1]
    if weight.shape[0] == 1:
        x = x[:, ::stride, ::stride]
        rows = mx.broadcast_to(bias, (x.size // cin, cout))
        return mx.addmm(rows, x.reshape(-1, cin), weight[0]).reshape(*x.shape[:3], cout)
    ho, wo = (h - 1) // stride + 1, (w - 1) // stride + 1
    hq, wq = ho + 2 // stride, wo + 2 // stride  # the grid each tap reads
    padded = mx.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)])
    count, tail = b * hq * wq, (2 // stride) * (wq + 1)  # tail: zero rows for the largest shift
    grids = {}
    for py in range(stride):
        for px in range(stride):
            g = padded[:, py::stride, px::stride][:, :hq, :wq]
            g = mx.pad(g, [(0, 0), (0, hq - g.shape[1]), (0, wq - g.shape[2]), (0, 0)])
            grids[py, px] = mx.concatenate([g.reshape(count, cin), mx.zeros((tail, cin), g.dtype)])
    out = mx.broadcast_to(bias, (count, cout))
    for tap in range(9):
        dy, dx = divmod(tap, 3)
        shift = (dy // stride) * wq + dx // stride
        out = mx.addmm(out, grids[dy % stride, dx % stride][shift : shift + count], weight[tap])
    return out.reshape(b, hq, wq, cout)[:, :ho, :wo]


class ConvBN(nn.Module):
    """A bias-free convolution followed by eval-mode BatchNorm, folded into one convolution with a bias."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int = 1):
        super().__init__()
        self.weight = mx.zeros((kernel * kernel, cin, cout))
        self.bias = mx.zeros((cout,))
        self.stride = stride

    def __call__(self, x: mx.array) -> mx.array:
        return conv(x, self.weight, self.bias, self.stride)


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = ConvBN(cin, cout, 3, stride)
        self.conv2 = ConvBN(cout, cout, 3)
        self.shortcut = ConvBN(cin, cout, 1, stride) if (stride != 1 or cin != cout) else None

    def __call__(self, x: mx.array) -> mx.array:
        out = self.conv2(nn.relu(self.conv1(x)))
        return nn.relu(out + (self.shortcut(x) if self.shortcut is not None else x))


class ResNet34(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ConvBN(1, 32, 3)
        cin, self.layers = 32, []
        for channels, blocks, stride in LAYERS:
            self.layers.append([BasicBlock(cin if j == 0 else channels, channels, stride if j == 0 else 1)
                                for j in range(blocks)])  # fmt: skip
            cin = channels
        self.seg_1 = nn.Linear(5120, 256)

    def frames(self, features: mx.array) -> mx.array:
        """fbank [B, T, 80] -> pooling input [B, 2560, T / 8] (channel-major, as torch reshapes it)."""
        x = nn.relu(self.conv1(features.swapaxes(1, 2)[..., None]))  # [B, 80 freq, T, 1]
        for layer in self.layers:
            for block in layer:
                x = block(x)
        b, f, t, c = x.shape
        return x.transpose(0, 3, 1, 2).reshape(b, c * f, t)

    def __call__(self, features: mx.array, masks: mx.array) -> mx.array:
        """fbank [B, T, 80], masks [B, S, 589] -> embeddings [B, S, 256]."""
        x = self.frames(features)[:, None]  # [B, 1, D, T']
        t = x.shape[-1]
        index = (np.arange(t) * masks.shape[-1]) // t  # F.interpolate(mode="nearest")
        w = masks[:, :, None, mx.array(index)]  # [B, S, 1, T']
        v1 = w.sum(axis=-1) + STATS_EPS
        mean = (w * x).sum(axis=-1) / v1
        v2 = mx.square(w).sum(axis=-1)
        var = (mx.square(x - mean[..., None]) * w).sum(axis=-1) / (v1 - v2 / v1 + STATS_EPS)
        return self.seg_1(mx.concatenate([mean, mx.sqrt(var)], axis=-1))


def _fold(state: dict[str, np.ndarray], name: str, bn: str) -> tuple[np.ndarray, np.ndarray]:
    scale = state[f"{bn}.weight"] / np.sqrt(state[f"{bn}.running_var"] + BN_EPS)
    weight = state[f"{name}.weight"] * scale[:, None, None, None]  # [out, in, k, k]
    bias = state[f"{bn}.bias"] - state[f"{bn}.running_mean"] * scale
    return weight.transpose(2, 3, 1, 0).reshape(-1, *weight.shape[1::-1]), bias  # [k * k, in, out]


def embedding_weights(state: dict[str, np.ndarray]) -> dict[str, mx.array]:
    """embedding/pytorch_model.bin's state dict -> ResNet34's parameters (BatchNorm folded, kernels [taps, in, out])."""
    pairs = {"conv1": ("resnet.conv1", "resnet.bn1")}
    for i, (_, blocks, _) in enumerate(LAYERS):
        for j in range(blocks):
            src, dst = f"resnet.layer{i + 1}.{j}", f"layers.{i}.{j}"
            pairs[f"{dst}.conv1"] = (f"{src}.conv1", f"{src}.bn1")
            pairs[f"{dst}.conv2"] = (f"{src}.conv2", f"{src}.bn2")
            if f"{src}.shortcut.0.weight" in state:
                pairs[f"{dst}.shortcut"] = (f"{src}.shortcut.0", f"{src}.shortcut.1")
    out = {}
    for dst, (conv, bn) in pairs.items():
        out[f"{dst}.weight"], out[f"{dst}.bias"] = _fold(state, conv, bn)
    out["seg_1.weight"], out["seg_1.bias"] = state["resnet.seg_1.weight"], state["resnet.seg_1.bias"]
    return {k: mx.array(np.asarray(v, np.float32)) for k, v in out.items()}
