"""The reference's streaming recipe: 512-sample windows, each with the previous window's last 64
samples in front, the LSTM state carried from window to window; both start at zeros.

    samples (16 kHz float32, any block lengths) -> whole windows [B, T, 576] -> model -> probabilities [B, T]
    the rest (< 512 samples) waits for the next push; `flush` zero-pads it to a last window

`VadStream.push` runs every whole window the block completes in one call; a live caller that pushes
a block at a time pays a flat cost per window (nothing grows with the stream's length). The state
is numpy's: fast.py's model runs in the caller's thread; model.py's MLX modules run behind Evaluated.
"""

from typing import Optional, Protocol

import mlx.core as mx
import numpy as np

from ..families.silero.model import CONTEXT, HIDDEN, WINDOW, Model

MAX_WINDOWS_PER_CALL = 1024  # bounds one call's memory on long audio (~20 MB of intermediates)


class WindowModel(Protocol):
    """fast.py's FastModel, or Evaluated(model.py's Model): windows [B, T, 576], h, c [B, 128] (numpy
    float32) -> probabilities [B, T], h, c."""

    def __call__(
        self, windows: np.ndarray, h: np.ndarray, c: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...


class Evaluated:
    """model.py's MLX math behind the WindowModel interface: one evaluation per call."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def __call__(self, windows: np.ndarray, h: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        probs, h_out, c_out = self.model(mx.array(np.ascontiguousarray(windows)), mx.array(h), mx.array(c))
        mx.eval(probs, h_out, c_out)
        return np.array(probs), np.array(h_out), np.array(c_out)


def windows_of(joined: np.ndarray) -> np.ndarray:
    """[B, 64 + n] float32, C-contiguous: the context, then n samples -> the whole windows
    [B, n // 512, 576], a view (windows overlap by the 64 context samples)."""
    rows, step = joined.strides
    shape = (joined.shape[0], (joined.shape[1] - CONTEXT) // WINDOW, CONTEXT + WINDOW)
    return np.ndarray(shape, np.float32, joined, 0, (rows, WINDOW * step, step))  # as_strided, 10x cheaper


class VadStream:
    """`batch` independent streams of 16 kHz audio -> a speech probability per 32 ms window."""

    def __init__(self, model: WindowModel, batch: int = 1) -> None:
        self.model, self.batch = model, batch
        self.reset()

    def reset(self) -> None:
        """A new stream: zero context, zero LSTM state, nothing pending."""
        self._tail = np.zeros((self.batch, CONTEXT), np.float32)  # the last window's context, then pending
        self.h = np.zeros((self.batch, HIDDEN), np.float32)
        self.c = np.zeros((self.batch, HIDDEN), np.float32)
        self.windows = 0  # windows judged so far

    @property
    def pending(self) -> int:
        """Samples waiting for their window to be complete."""
        return self._tail.shape[1] - CONTEXT

    def push(self, samples: np.ndarray) -> np.ndarray:
        """samples [n] (one stream) or [batch, n] -> float32 probabilities of the windows completed,
        [T] or [batch, T] (T may be 0)."""
        single = samples.ndim == 1
        block = np.asarray(samples, np.float32).reshape(self.batch, -1) if single else samples
        if block.shape[0] != self.batch:
            raise ValueError(
                f"this stream has {self.batch} rows, the block has {block.shape[0]}: use VadStream(batch=)"
            )
        joined = np.concatenate([self._tail, block.astype(np.float32, copy=False)], axis=1)
        windows = windows_of(joined)
        self._tail = joined[:, windows.shape[1] * WINDOW :].copy()
        probs = self._run(windows)
        return probs[0] if single else probs

    def flush(self) -> np.ndarray:
        """The pending samples zero-padded to a last window (as the reference pads a clip's last window)."""
        if self.pending == 0:
            probs = np.zeros((self.batch, 0), np.float32)
        else:
            probs = self.push(np.zeros((self.batch, WINDOW - self.pending), np.float32))
        return probs[0] if self.batch == 1 else probs

    def _run(self, windows: np.ndarray) -> np.ndarray:
        out = [np.zeros((self.batch, 0), np.float32)]
        for start in range(0, windows.shape[1], MAX_WINDOWS_PER_CALL):
            probs, self.h, self.c = self.model(windows[:, start : start + MAX_WINDOWS_PER_CALL], self.h, self.c)
            out.append(probs)
        self.windows += windows.shape[1]
        return out[-1] if len(out) == 2 else np.concatenate(out, axis=1)


def probabilities_of(model: WindowModel, wave: np.ndarray, stream: Optional[VadStream] = None) -> np.ndarray:
    """One clip from a fresh state: ceil(n / 512) probabilities (one for a clip shorter than 512)."""
    stream = stream or VadStream(model)
    stream.reset()
    return np.concatenate([stream.push(wave), stream.flush()])
