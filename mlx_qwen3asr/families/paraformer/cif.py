"""Continuous integrate-and-fire (CIF): how many tokens the audio holds, where they fire, and what each one hears.

    encoder output h [T, 512] -> Predictor (MLX): pad 1 | 1 -> conv1d 512 -> 512, kernel 3 -> ReLU
       -> cif_output 512 -> 1 -> sigmoid -> alphas [T] (weights near 0.5 with random weights, ~0.3 trained)
    -> (host numpy, after one evaluation) the tail: alphas + [tail_threshold 0.45], h + [zeros]   [T + 1]
    -> fire(): the running sum of alphas crosses each whole number at a fire (funasr 1.4.16's cif_v1 fires
       there whatever `threshold` says: the config reader accepts 1.0 only)
    -> integrate(): token k is the alpha-weighted sum of h between fire k - 1 and fire k, the frames at each
       fire split between the two tokens by the fraction past the whole number          [N, 512]
    -> N = floor(sum of alphas, tail included): a tail of 0.45 makes a last token when the clip ends past
       .55 of one (the "tail fire")

Exactness: funasr computes both sums with torch's CPU cumsum, which accumulates float32 in float64 and rounds
each output to float32; the fire test, the fractions ((1 + s) - floor(s) in float32) and the token rows
(P[k] - P[k-1] + r[k-1] h[k-1] - r[k] h[k], left to right in float32) are written here in the same order,
so the fires are identical and the rows agree to float32 round-off of the prefix sums.
Cost: two cumulative sums and a gather, linear in T and vectorised (a 60 s clip: ~1000 x 512; see
scripts/bench/vs_official.py --family paraformer for its time next to the encoder's).

fire_loop() is funasr's sequential cif_wo_hidden, which its timestamp path runs on rescaled alphas
(timestamps.py): one float32 add and compare per frame, a Python loop of T + 1 steps.
"""

import math

import mlx.core as mx
import mlx.nn as nn
import numpy as np


class Predictor(nn.Module):
    """funasr's CifPredictorV2 up to the alphas (module names are the release's: predictor.cif_conv1d/cif_output)."""

    def __init__(self, dim: int, l_order: int, r_order: int, smooth_factor: float = 1.0, noise_threshold: float = 0.0):
        super().__init__()
        self.cif_conv1d = nn.Conv1d(dim, dim, l_order + r_order + 1)
        self.cif_output = nn.Linear(dim, 1)
        self.orders = (l_order, r_order)
        self.smooth_factor, self.noise_threshold = smooth_factor, noise_threshold

    def __call__(self, hidden: mx.array) -> mx.array:
        """Encoder output [B, T, D] -> alphas [B, T] float32."""
        padded = mx.pad(hidden, [(0, 0), self.orders, (0, 0)])
        alphas = mx.sigmoid(self.cif_output(nn.relu(self.cif_conv1d(padded)))[..., 0].astype(mx.float32))
        return nn.relu(alphas * self.smooth_factor - self.noise_threshold)


def cumsum(x: np.ndarray) -> np.ndarray:
    """torch.cumsum of float32 on the CPU: float64 accumulation, each output rounded to float32."""
    return np.cumsum(x, axis=0, dtype=np.float64).astype(np.float32)


def total(alphas: np.ndarray) -> np.float32:
    """The float32 sum of the alphas (the float64 sum rounded once: torch's float32 sum agrees but in the last bit)."""
    return np.float32(np.sum(alphas, dtype=np.float64))


def with_tail(alphas: np.ndarray, hidden: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """funasr's tail_process_fn on one clip: one more frame, of weight `tail` and zero hidden state."""
    alphas = np.concatenate([alphas.astype(np.float32), [np.float32(tail)]])
    return alphas, np.concatenate([hidden, np.zeros((1, hidden.shape[1]), hidden.dtype)])


def fire(alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fires [T] float32: 1 + the fraction past the whole number where one is crossed, the fraction elsewhere;
    fired [T] bool), as funasr's cif_wo_hidden_v1 computes them."""
    running = cumsum(alphas)
    floors = np.floor(running)
    before = np.concatenate([[np.float32(0)], floors[:-1]])
    fired = floors - before > 0
    return (fired.astype(np.float32) + running) - floors, fired


def integrate(hidden: np.ndarray, alphas: np.ndarray, fires: np.ndarray, fired: np.ndarray, count: int) -> np.ndarray:
    """The token rows [count, D] (funasr's cif_v1): rows past the last fire stay zero, fires past `count` are cut."""
    out = np.zeros((count, hidden.shape[1]), np.float32)
    if not fired.any() or count == 0:
        return out
    frames = cumsum(alphas[:, None] * hidden)[fired]
    remains = (fires - np.floor(fires))[fired][:, None] * hidden[fired]
    before = np.concatenate([np.zeros_like(frames[:1]), frames[:-1]])
    remains_before = np.concatenate([np.zeros_like(remains[:1]), remains[:-1]])
    rows = frames - before + remains_before - remains
    n = min(count, len(rows))
    out[:n] = rows[:n]
    return out


def token_count(alphas: np.ndarray) -> int:
    """N: the floor of the alphas' sum, the tail included (funasr's tail_process_fn)."""
    return int(math.floor(total(alphas)))


def fire_loop(alphas: np.ndarray, threshold: float) -> np.ndarray:
    """funasr's cif_wo_hidden: the running sum after each frame, less `threshold` once it reaches it (float32)."""
    limit = np.float32(threshold)
    integrate_ = np.float32(0)
    out = np.empty(len(alphas), np.float32)
    for t, alpha in enumerate(alphas.astype(np.float32)):
        integrate_ = np.float32(integrate_ + alpha)
        out[t] = integrate_
        if integrate_ >= limit:
            integrate_ = np.float32(integrate_ - limit)
    return out
