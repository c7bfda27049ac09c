"""PyanNet (pyannote segmentation-3.0): 10 s of audio -> per-frame powerset log-probabilities.

    wave [B, 160000] -> InstanceNorm (1 channel, affine)
    -> SincNet: 80 parametric sinc filters (kernel 251, stride 10) -> |.| -> MaxPool 3 -> InstanceNorm
       -> LeakyReLU                                                         [B, 5325, 80]
       -> Conv1d(80, 60, 5) -> MaxPool 3 -> InstanceNorm -> LeakyReLU       [B, 1773, 60]
       -> Conv1d(60, 60, 5) -> MaxPool 3 -> InstanceNorm -> LeakyReLU       [B, 589, 60]
    -> 4-layer bidirectional LSTM (hidden 128 each way, PyTorch gate order i, f, g, o) [B, 589, 256]
    -> Linear 256->128, LeakyReLU, Linear 128->128, LeakyReLU, Linear 128->7, log-softmax [B, 589, 7]

MLX keeps channels last: [B, time, channels]. The sinc filters are computed once, at load, from the
checkpoint's low_hz_/band_hz_ parameters and its window_/n_ buffers, exactly as asteroid's ParamSincFB does.
"""

import mlx.core as mx
import mlx.nn as nn
import numpy as np

MIN_LOW_HZ = MIN_BAND_HZ = 50.0
NYQUIST = 8000.0
SINC_STRIDE = 10
POOL = 3
LEAKY_SLOPE = 0.01  # F.leaky_relu's default
NORM_EPS = 1e-5
LSTM_LAYERS, LSTM_HIDDEN = 4, 128


def sinc_filters(low_hz_: np.ndarray, band_hz_: np.ndarray, window_: np.ndarray, n_: np.ndarray) -> np.ndarray:
    """ParamSincFB's 80 filters [80, 251] float32: 40 cos (even) then 40 sin (odd) band-passes."""
    f32 = np.float32
    low = f32(MIN_LOW_HZ) + np.abs(low_hz_)  # [40, 1]
    high = np.clip(low + f32(MIN_BAND_HZ) + np.abs(band_hz_), f32(MIN_LOW_HZ), f32(NYQUIST))
    band = (high - low)[:, 0]
    ft_low, ft_high = low @ n_, high @ n_  # [40, 125]
    half_n = n_ / f32(2)
    cos_left = (np.sin(ft_high) - np.sin(ft_low)) / half_n * window_
    sin_left = (np.cos(ft_low) - np.cos(ft_high)) / half_n * window_
    cos = np.concatenate([cos_left, 2 * band[:, None], cos_left[:, ::-1]], axis=1)
    sin = np.concatenate([sin_left, np.zeros_like(band)[:, None], -sin_left[:, ::-1]], axis=1)
    return (np.concatenate([cos, sin]) / np.tile(2 * band, 2)[:, None]).astype(np.float32)


def instance_norm(x: mx.array, weight: mx.array, bias: mx.array) -> mx.array:
    """InstanceNorm1d(affine) over time, per channel: x [B, T, C]."""
    mean = x.mean(axis=1, keepdims=True)
    var = mx.square(x - mean).mean(axis=1, keepdims=True)
    return (x - mean) * mx.rsqrt(var + NORM_EPS) * weight + bias


def max_pool(x: mx.array) -> mx.array:
    """MaxPool1d(3, 3) over time (the tail that does not fill a window is dropped)."""
    b, t, c = x.shape
    t = t // POOL
    return x[:, : t * POOL].reshape(b, t, POOL, c).max(axis=2)


class Norm(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = mx.ones((channels,))
        self.bias = mx.zeros((channels,))

    def __call__(self, x: mx.array) -> mx.array:
        return instance_norm(x, self.weight, self.bias)


class SincNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.wav_norm1d = Norm(1)
        self.filters = mx.zeros((80, 251, 1))  # sinc_filters() as conv weights [out, kernel, in]
        self.conv1d = [nn.Conv1d(80, 60, 5), nn.Conv1d(60, 60, 5)]
        self.norm1d = [Norm(80), Norm(60), Norm(60)]

    def __call__(self, wave: mx.array) -> mx.array:
        x = self.wav_norm1d(wave[..., None])
        x = mx.abs(mx.conv1d(x, self.filters, stride=SINC_STRIDE))
        x = nn.leaky_relu(self.norm1d[0](max_pool(x)), LEAKY_SLOPE)
        for conv, norm in zip(self.conv1d, self.norm1d[1:]):
            x = nn.leaky_relu(norm(max_pool(conv(x))), LEAKY_SLOPE)
        return x


class BiLSTM(nn.Module):
    """PyTorch's multi-layer bidirectional LSTM; both directions of a layer advance in one matmul."""

    def __init__(self, input_size: int = 60):
        super().__init__()
        self.w_ih = [mx.zeros((2, 4 * LSTM_HIDDEN, input_size if i == 0 else 2 * LSTM_HIDDEN)) for i in range(4)]
        self.w_hh = [mx.zeros((2, 4 * LSTM_HIDDEN, LSTM_HIDDEN)) for _ in range(LSTM_LAYERS)]
        self.bias = [mx.zeros((2, 1, 4 * LSTM_HIDDEN)) for _ in range(LSTM_LAYERS)]  # b_ih + b_hh

    def layer(self, x: mx.array, i: int) -> mx.array:
        b, t, _ = x.shape
        inputs = mx.stack([x, x[:, ::-1]])  # [2, B, T, F]: the reverse direction reads time backwards
        gates_in = inputs @ self.w_ih[i].swapaxes(1, 2)[:, None] + self.bias[i][:, None]  # [2, B, T, 4H]
        w_hh = self.w_hh[i].swapaxes(1, 2)
        h = mx.zeros((2, b, LSTM_HIDDEN))
        c = mx.zeros((2, b, LSTM_HIDDEN))
        outputs = []
        for step in range(t):
            gates = gates_in[:, :, step] + h @ w_hh
            i_g, f_g, g_g, o_g = mx.split(gates, 4, axis=-1)
            c = mx.sigmoid(f_g) * c + mx.sigmoid(i_g) * mx.tanh(g_g)
            h = mx.sigmoid(o_g) * mx.tanh(c)
            outputs.append(h)
        out = mx.stack(outputs, axis=2)  # [2, B, T, H]
        return mx.concatenate([out[0], out[1][:, ::-1]], axis=-1)

    def __call__(self, x: mx.array) -> mx.array:
        for i in range(LSTM_LAYERS):
            x = self.layer(x, i)
        return x


class PyanNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.sincnet = SincNet()
        self.lstm = BiLSTM()
        self.linear = [nn.Linear(256, 128), nn.Linear(128, 128)]
        self.classifier = nn.Linear(128, 7)

    def __call__(self, wave: mx.array) -> mx.array:
        """[B, 160000] float32 -> powerset log-probabilities [B, 589, 7]."""
        x = self.lstm(self.sincnet(wave))
        for linear in self.linear:
            x = nn.leaky_relu(linear(x), LEAKY_SLOPE)
        return nn.log_softmax(self.classifier(x), axis=-1)


def segmentation_weights(state: dict[str, np.ndarray]) -> dict[str, mx.array]:
    """segmentation/pytorch_model.bin's state dict -> PyanNet's parameters (sinc filters built, LSTM stacked)."""
    p = "sincnet.conv1d.0.filterbank."
    filters = sinc_filters(*(state[p + k] for k in ("low_hz_", "band_hz_", "window_", "n_")))
    out = {"sincnet.filters": filters[:, :, None]}
    for name in ("wav_norm1d", "norm1d.0", "norm1d.1", "norm1d.2"):
        for kind in ("weight", "bias"):
            out[f"sincnet.{name}.{kind}"] = state[f"sincnet.{name}.{kind}"]
    for i in (1, 2):
        out[f"sincnet.conv1d.{i - 1}.weight"] = state[f"sincnet.conv1d.{i}.weight"].transpose(0, 2, 1)
        out[f"sincnet.conv1d.{i - 1}.bias"] = state[f"sincnet.conv1d.{i}.bias"]
    for i in range(LSTM_LAYERS):
        keys = (f"l{i}", f"l{i}_reverse")
        out[f"lstm.w_ih.{i}"] = np.stack([state[f"lstm.weight_ih_{k}"] for k in keys])
        out[f"lstm.w_hh.{i}"] = np.stack([state[f"lstm.weight_hh_{k}"] for k in keys])
        out[f"lstm.bias.{i}"] = np.stack([state[f"lstm.bias_ih_{k}"] + state[f"lstm.bias_hh_{k}"] for k in keys])[
            :, None
        ]
    for name in ("linear.0", "linear.1", "classifier"):
        out[f"{name}.weight"], out[f"{name}.bias"] = state[f"{name}.weight"], state[f"{name}.bias"]
    return {k: mx.array(np.asarray(v, np.float32)) for k, v in out.items()}
