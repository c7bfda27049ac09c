"""Silero VAD with fewer, larger operations: model.py's math refolded for speed, swapped in at load.

A window is tiny (576 samples, 4 STFT frames), so on the CPU the cost is the number of operations,
not their arithmetic. Everything up to the magnitude is linear, and every convolution runs on a fixed
length, so each folds into one matrix built once from the checkpoint's tensors:

    x [N, 576] @ A [576, 4 * 258]       reflect pad + 4 frames + STFT basis (A = basis o frame_t o pad)
    -> magnitude                                                       [N, 4 * 129] (frame-major)
    -> 4 x (y @ D_l + b_l, ReLU)       D_l: encoder.l on its length 4 -> 4 -> 2 -> 1 -> 1, zero where
                                        the kernel does not reach (the padding's zeros drop out)
    -> y @ W_ih^T + b_ih + b_hh        the LSTM's input share of the gates, all windows at once
    -> per window: the LSTM step and the head, one compiled function (mx.compile fuses the gates)

Same numbers as model.py within float32 summation order (tests: 1e-5 on real speech).
"""

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from .model import CONTEXT, ENCODER, HOP, N_FFT, PAD, WINDOW, Model

INPUT = CONTEXT + WINDOW  # 576
FRAMES = (INPUT + PAD - N_FFT) // HOP + 1  # 4


def analysis_matrix(basis: np.ndarray) -> np.ndarray:
    """basis [258, 256] -> A [576, 4 * 258] with x @ A = the STFT of the reflect-padded x, frame-major."""
    padded = np.arange(INPUT + PAD)
    source = np.where(padded < INPUT, padded, 2 * (INPUT - 1) - padded)  # mirror without the edge sample
    out = np.zeros((INPUT, FRAMES, basis.shape[0]), np.float64)
    for t in range(FRAMES):
        np.add.at(out[:, t, :], source[t * HOP : t * HOP + N_FFT], basis.T.astype(np.float64))
    return out.reshape(INPUT, -1).astype(np.float32)


def dense_conv(weight: np.ndarray, length: int, stride: int) -> tuple[np.ndarray, int]:
    """A kernel-3, pad-1 convolution (MLX layout [out, 3, in]) on `length` frames as one matrix
    [length * in, length_out * out] (frame-major on both sides), and length_out."""
    out_dims, kernel, in_dims = weight.shape
    length_out = (length + 2 - kernel) // stride + 1
    dense = np.zeros((length, in_dims, length_out, out_dims), np.float32)
    for t in range(length_out):
        for k in range(kernel):
            source = t * stride + k - 1
            if 0 <= source < length:
                dense[source, :, t, :] += weight[:, k, :].T
    return dense.reshape(length * in_dims, length_out * out_dims), length_out


class FastModel:
    """Model's interface (windows [B, T, 576], h, c -> probabilities [B, T], h, c), built from a Model."""

    def __init__(self, model: Model) -> None:
        basis = np.array(model.stft.forward_basis_buffer)[:, 0, :]
        self.analysis = mx.array(analysis_matrix(basis))
        self.encoder, length = [], FRAMES
        for block, (_, _, stride) in zip(model.encoder, ENCODER):
            dense, length_out = dense_conv(np.array(block.reparam_conv.weight), length, stride)
            self.encoder.append((mx.array(dense), mx.tile(block.reparam_conv.bias, (length_out,))))
            length = length_out
        rnn, head = model.decoder.rnn, model.decoder.decoder[2]
        self.w_ih, self.w_hh = rnn.weight_ih.T, rnn.weight_hh.T
        self.bias = rnn.bias_ih + rnn.bias_hh
        self.w_out, self.b_out = head.weight[:, 0, :].T, head.bias
        mx.eval(self.analysis, self.encoder, self.w_ih, self.w_hh, self.bias, self.w_out, self.b_out)
        self._step = mx.compile(self.step)
        self._one = mx.compile(lambda x, h, c: self.step(self.features(x), h, c))

    def features(self, x: mx.array) -> mx.array:
        """[N, 576] -> the LSTM's input share of the gates [N, 512]."""
        spectrum = (x @ self.analysis).reshape(x.shape[0], FRAMES, -1)
        half = spectrum.shape[-1] // 2
        real, imag = spectrum[..., :half], spectrum[..., half:]
        y = mx.sqrt(real * real + imag * imag).reshape(x.shape[0], -1)
        for dense, bias in self.encoder:
            y = nn.relu(mx.addmm(bias, y, dense))
        return mx.addmm(self.bias, y, self.w_ih)

    def step(self, gates_in: mx.array, h: mx.array, c: mx.array) -> tuple[mx.array, mx.array, mx.array]:
        """One window's LSTM step (torch gate order i, f, g, o) and head: probability [B], h, c."""
        i, f, g, o = mx.split(gates_in + h @ self.w_hh, 4, axis=-1)
        c = mx.sigmoid(f) * c + mx.sigmoid(i) * mx.tanh(g)
        h = mx.sigmoid(o) * mx.tanh(c)
        return mx.sigmoid(mx.addmm(self.b_out, nn.relu(h), self.w_out))[:, 0], h, c

    def __call__(self, windows: mx.array, h: mx.array, c: mx.array) -> tuple[mx.array, mx.array, mx.array]:
        batch, steps = windows.shape[:2]
        if steps == 1:  # the live step: one compiled call
            p, h, c = self._one(windows[:, 0], h, c)
            return p[:, None], h, c
        gates = self.features(windows.reshape(batch * steps, -1)).reshape(batch, steps, -1)
        probs = []
        for t in range(steps):
            p, h, c = self._step(gates[:, t], h, c)
            probs.append(p)
        return mx.stack(probs, axis=1), h, c
