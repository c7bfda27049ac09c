"""Silero VAD v6, 16 kHz: the model math. Windows of 512 new samples (+ 64 of context) -> speech probability.

    windows [B, T, 576] (each: the previous window's last CONTEXT samples, then WINDOW new ones)
    -> reflect-pad 64 on the right (mirror without the edge sample)        [B*T, 640]
    -> STFT as a strided product with `stft.forward_basis_buffer`:
       4 frames of 256, hop 128, x rows 0..128 hann*cos, 129..257 -hann*sin  [B*T, 4, 258]
    -> magnitude sqrt(re^2 + im^2) (no log, no normalisation)             [B*T, 4, 129]
    -> encoder: 4 convolutions, kernel 3, pad 1, strides 1, 2, 2, 1, ReLU  [B*T, 1, 128]
    -> decoder.rnn: an LSTM cell (torch gate order i, f, g, o), state (h, c) carried over T
    -> ReLU -> decoder.decoder.2 (a 1x1 convolution 128 -> 1) -> sigmoid  [B, T]

The probabilities depend on the level: nothing normalises the audio (the STFT magnitudes scale with
it). Module names are the .jit's state-dict names without `_model.`, so the shipped file loads as is;
`sanitize` turns the torch-layout convolutions [out, in, k] into MLX's [out, k, in].
Only the LSTM runs step by step; everything before it is independent per window and runs batched.
"""

from pathlib import Path

import mlx.core as mx
import mlx.nn as nn

WEIGHTS = Path(__file__).with_name("weights.safetensors")  # the real weights, package data beside this file

SAMPLE_RATE = 16000
WINDOW = 512  # new samples per probability: 32 ms
CONTEXT = 64  # samples of the previous window prepended to each (zeros before the first)
N_FFT, HOP = 256, 128
PAD = 64  # right reflect padding of the 576-sample input
HIDDEN = 128
ENCODER = ((129, 128, 1), (128, 64, 2), (64, 64, 2), (64, 128, 1))  # (in, out, stride) of each convolution


class STFT(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.forward_basis_buffer = mx.zeros((N_FFT + 2, 1, N_FFT))  # [258, 1, 256]: cos rows, then -sin rows

    def __call__(self, x: mx.array) -> mx.array:
        """x [N, 576] -> magnitudes [N, 4, 129]."""
        mirror = x[:, -PAD - 1 : -1][:, ::-1]  # ReflectionPad1d((0, 64)): x[574], x[573], ..., x[511]
        x = mx.concatenate([x, mirror], axis=1)
        frames = mx.stack([x[:, i : i + N_FFT] for i in range(0, x.shape[1] - N_FFT + 1, HOP)], axis=1)
        spectrum = frames @ self.forward_basis_buffer[:, 0, :].T
        real, imag = spectrum[..., : N_FFT // 2 + 1], spectrum[..., N_FFT // 2 + 1 :]
        return mx.sqrt(real * real + imag * imag)


class EncoderBlock(nn.Module):
    """A re-parameterised convolution (the .jit's `se` is Identity), then ReLU."""

    def __init__(self, dims_in: int, dims_out: int, stride: int) -> None:
        super().__init__()
        self.reparam_conv = nn.Conv1d(dims_in, dims_out, kernel_size=3, stride=stride, padding=1)

    def __call__(self, x: mx.array) -> mx.array:
        return nn.relu(self.reparam_conv(x))


class LSTMCell(nn.Module):
    """torch.nn.LSTMCell's parameters and math: gates in the order i, f, g, o."""

    def __init__(self, dims: int) -> None:
        super().__init__()
        self.weight_ih = mx.zeros((4 * dims, dims))
        self.weight_hh = mx.zeros((4 * dims, dims))
        self.bias_ih = mx.zeros((4 * dims,))
        self.bias_hh = mx.zeros((4 * dims,))

    def inputs(self, x: mx.array) -> mx.array:
        """The input's share of the gates, for every step at once: x [..., dims] -> [..., 4 * dims]."""
        return x @ self.weight_ih.T + self.bias_ih + self.bias_hh

    def __call__(self, gates_in: mx.array, h: mx.array, c: mx.array) -> tuple[mx.array, mx.array]:
        i, f, g, o = mx.split(gates_in + h @ self.weight_hh.T, 4, axis=-1)
        c = mx.sigmoid(f) * c + mx.sigmoid(i) * mx.tanh(g)
        return mx.sigmoid(o) * mx.tanh(c), c


class Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.rnn = LSTMCell(HIDDEN)
        # torch: Sequential(Dropout, ReLU, Conv1d(128, 1, 1), Sigmoid); dropout is a no-op at inference
        self.decoder = [nn.Identity(), nn.ReLU(), nn.Conv1d(HIDDEN, 1, kernel_size=1), nn.Sigmoid()]

    def head(self, h: mx.array) -> mx.array:
        """LSTM outputs [..., 128] -> probabilities [...]."""
        x = self.decoder[1](h)
        return self.decoder[3](x @ self.decoder[2].weight[:, 0, :].T + self.decoder[2].bias)[..., 0]


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stft = STFT()
        self.encoder = [EncoderBlock(*dims) for dims in ENCODER]
        self.decoder = Decoder()

    def features(self, windows: mx.array) -> mx.array:
        """[N, 576] -> the LSTM's input share of the gates [N, 512]; each window on its own."""
        x = self.stft(windows)
        for block in self.encoder:
            x = block(x)
        return self.decoder.rnn.inputs(x[:, 0, :])

    def __call__(self, windows: mx.array, h: mx.array, c: mx.array) -> tuple[mx.array, mx.array, mx.array]:
        """windows [B, T, 576], state h, c [B, 128] -> probabilities [B, T] and the state after window T."""
        batch, steps = windows.shape[:2]
        gates = self.features(windows.reshape(batch * steps, -1)).reshape(batch, steps, -1)
        outputs = []
        for t in range(steps):
            h, c = self.decoder.rnn(gates[:, t], h, c)
            outputs.append(h)
        return self.decoder.head(mx.stack(outputs, axis=1)), h, c

    @staticmethod
    def sanitize(weights: dict) -> dict:
        """torch-layout convolutions [out, in, k] -> MLX [out, k, in]; idempotent on MLX-layout ones."""
        conv = {f"encoder.{i}.reparam_conv.weight": dims[0] for i, dims in enumerate(ENCODER)}
        conv["decoder.decoder.2.weight"] = HIDDEN
        return {
            k: v.swapaxes(1, 2) if k in conv and v.shape[1] == conv[k] and v.shape[2] != conv[k] else v
            for k, v in weights.items()
        }
