"""Silero VAD on the CPU in the caller's thread: model.py's math refolded into a few numpy products,
swapped in at load.

A window is tiny (576 samples, 4 STFT frames, ~1.3 MFLOP), so its cost is the number of operations
and their dispatch, not arithmetic. An MLX evaluation hands its graph to the stream's thread and
waits for it: a compiled MLX live step took 0.8 ms a window on a 2-vCPU Xeon at load 2 and 3.3 ms at
load 15, and was 0.14-0.17x onnxruntime's speed; here it runs in the caller's thread, ~0.1 ms of CPU.
The weights are read from the MLX model once; each stage folds into one product:

    x [N, 576] -> frames (frame_index()): reflect pad + 4 frames of 256, hop 128   [N, 4, 256]
    -> @ the STFT basis (cos rows, -sin rows) -> magnitude                         [N, 4, 129]
    -> encoder.0 (stride 1): @ its 3 taps side by side [129, 3 * 128], summed shifted by one frame
    -> encoder.1..3 on their fixed lengths 4 -> 2 -> 1 -> 1 as dense matrices (zero where the kernel
       does not reach: the padding's zeros drop out), each + bias, ReLU             [N, 128]
    -> @ W_ih + b_ih + b_hh: the LSTM's input share of the gates, all windows at once [N, 512]
    -> per window: h @ W_hh + that share -> the cell (gates reordered i, f, o, g; sigmoid(z) =
       (1 + tanh(z / 2)) / 2, the halving folded into the weights: one tanh for all four gates)
    -> ReLU -> head -> sigmoid, all windows at once                                 [B, T]

Every product runs on the calling thread. numpy's OpenBLAS (its Linux and Windows wheels) splits a
product of about a million multiply-adds or more over worker threads (measured with numpy 2.4's
OpenBLAS 0.3.31: 15 x 128 x 512 was split, 4 x 128 x 1536 was not), and on a busy 2-core machine the
workers spin against each other: one 16 x 128 x 512 product took 0.4-3.6 ms of CPU against ~20 us on
one thread, and they slowed what ran after them. `product` cuts the rows into blocks of at most 2^19
multiply-adds: 16 streams' live step went from 1.0 ms to 31 us a window; a whole clip ran as fast.
Same numbers as model.py within float32 summation order (tests: within 2e-4 of the reference).
"""

import numpy as np

from .model import CONTEXT, ENCODER, HIDDEN, HOP, N_FFT, PAD, WINDOW, Model

INPUT = CONTEXT + WINDOW  # 576
FRAMES = (INPUT + PAD - N_FFT) // HOP + 1  # 4
BINS = N_FFT // 2 + 1  # 129
ONE_THREAD = 1 << 19  # multiply-adds per product block: well under where numpy's OpenBLAS starts threads


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a [M, K] @ b [K, N], in blocks of rows small enough to stay on the calling thread."""
    rows = max(1, ONE_THREAD // b.size)
    if len(a) <= rows:
        return a @ b
    out = np.empty((len(a), b.shape[1]), np.float32)
    for start in range(0, len(a), rows):
        np.matmul(a[start : start + rows], b, out=out[start : start + rows])
    return out


def frame_index() -> np.ndarray:
    """[4, 256] sample of the 576-sample input under each frame position, the reflect padding included
    (ReflectionPad1d((0, 64)) mirrors without the edge sample: position 576 reads 574)."""
    padded = np.arange(FRAMES)[:, None] * HOP + np.arange(N_FFT)[None, :]
    return np.where(padded < INPUT, padded, 2 * (INPUT - 1) - padded)


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


def gate_order(rows: np.ndarray) -> np.ndarray:
    """torch's gate blocks i, f, g, o (last axis) -> i, f, o, g with the sigmoid gates halved
    (exact: a power of two), so that tanh of all four gives the sigmoids by (1 + t) / 2."""
    i, f, g, o = np.split(rows, 4, axis=-1)
    return np.ascontiguousarray(np.concatenate([i / 2, f / 2, o / 2, g], axis=-1), np.float32)


def _array(value) -> np.ndarray:
    return np.array(value, np.float32)


class FastModel:
    """Model's interface (windows [B, T, 576], h, c [B, 128] -> probabilities [B, T], h, c) in numpy
    float32, built from a loaded Model."""

    def __init__(self, model: Model) -> None:
        basis = _array(model.stft.forward_basis_buffer)[:, 0, :]  # [258, 256]
        self.index = frame_index()
        self.basis = np.ascontiguousarray(basis.T)
        first = _array(model.encoder[0].reparam_conv.weight)  # [128, 3, 129]
        self.taps = np.ascontiguousarray(np.concatenate([first[:, k, :].T for k in range(3)], axis=1))
        self.first_bias = _array(model.encoder[0].reparam_conv.bias)
        self.dense, length = [], FRAMES
        for block, (_, _, stride) in zip(model.encoder[1:], ENCODER[1:]):
            matrix, length = dense_conv(_array(block.reparam_conv.weight), length, stride)
            self.dense.append((matrix, np.tile(_array(block.reparam_conv.bias), length)))
        rnn, head = model.decoder.rnn, model.decoder.decoder[2]
        self.w_ih, self.w_hh = gate_order(_array(rnn.weight_ih).T), gate_order(_array(rnn.weight_hh).T)
        self.bias = gate_order(_array(rnn.bias_ih) + _array(rnn.bias_hh))
        # halved (exact) for sigmoid(z) = (1 + tanh(z / 2)) / 2, without exp's overflow
        self.w_out, self.b_out = np.ascontiguousarray(_array(head.weight)[:, 0, :].T) / 2, _array(head.bias) / 2

    def features(self, x: np.ndarray) -> np.ndarray:
        """[N, 576] -> the LSTM's input share of the (reordered, halved) gates [N, 512]."""
        frames = np.take(x, self.index, axis=1).reshape(-1, N_FFT)  # [N * 4, 256]
        spectrum = product(frames, self.basis)
        spectrum *= spectrum
        magnitude = spectrum[:, :BINS] + spectrum[:, BINS:]
        np.sqrt(magnitude, out=magnitude)
        taps = product(magnitude, self.taps).reshape(len(x), FRAMES, 3 * HIDDEN)
        y = taps[:, :, HIDDEN : 2 * HIDDEN] + self.first_bias  # tap 1 reads its own frame
        y[:, 1:] += taps[:, :-1, :HIDDEN]  # tap 0 reads the frame before (zero before the first)
        y[:, :-1] += taps[:, 1:, 2 * HIDDEN :]  # tap 2 the frame after (zero after the last)
        y = np.maximum(y, 0, out=y).reshape(len(x), -1)
        for matrix, bias in self.dense:
            y = product(y, matrix)
            y += bias
            np.maximum(y, 0, out=y)
        gates = product(y, self.w_ih)
        gates += self.bias
        return gates

    def cells(self, gates: np.ndarray, h: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The LSTM over T steps: gates [T, B, 512] (features'), h, c [B, 128] -> outputs [T, B, 128], h, c."""
        outputs = np.empty(gates.shape[:2] + (HIDDEN,), np.float32)
        z = np.empty(gates.shape[1:], np.float32)
        c, rows = c.copy(), ONE_THREAD // self.w_hh.size  # 8 streams per block
        for t in range(len(gates)):
            for start in range(0, len(z), rows):
                np.matmul(h[start : start + rows], self.w_hh, out=z[start : start + rows])
            z += gates[t]
            np.tanh(z, out=z)
            sig = z[:, : 3 * HIDDEN]
            sig += 1
            sig *= 0.5  # i, f, o: sigmoids; z[:, 384:]: tanh(g)
            c *= z[:, HIDDEN : 2 * HIDDEN]
            i_g = z[:, :HIDDEN]
            i_g *= z[:, 3 * HIDDEN :]
            c += i_g
            h = np.multiply(z[:, 2 * HIDDEN : 3 * HIDDEN], np.tanh(c), out=outputs[t])
        return outputs, h, c

    def head(self, outputs: np.ndarray) -> np.ndarray:
        """LSTM outputs [..., 128] -> probabilities [...]: ReLU, the 1x1 convolution, sigmoid."""
        z = product(np.maximum(outputs, 0).reshape(-1, HIDDEN), self.w_out)
        z += self.b_out
        np.tanh(z, out=z)
        z += 1
        z *= 0.5
        return z.reshape(outputs.shape[:-1])

    def __call__(self, windows: np.ndarray, h: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        batch, steps = windows.shape[:2]
        gates = self.features(windows.reshape(batch * steps, INPUT)).reshape(batch, steps, -1)
        outputs, h, c = self.cells(gates.transpose(1, 0, 2), h, c)
        return self.head(outputs).T, h, c
