"""The reference's streaming recipe: 512-sample windows, each with the previous window's last 64
samples in front, the LSTM state carried from window to window; both start at zeros.

    samples (16 kHz float32, any block lengths) -> whole windows [B, T, 576] -> model -> probabilities [B, T]
    the rest (< 512 samples) waits for the next push; `flush` zero-pads it to a last window

`VadStream.push` runs every whole window the block completes in one call; a live caller that pushes
a block at a time pays a flat cost per window (nothing grows with the stream's length).
"""

from typing import Optional, Protocol

import mlx.core as mx
import numpy as np

from .model import CONTEXT, HIDDEN, WINDOW

MAX_WINDOWS_PER_CALL = 1024  # bounds the graph one call builds (and its memory) on long audio


class WindowModel(Protocol):
    """model.py's Model or fast.py's FastModel: windows [B, T, 576], h, c -> probabilities [B, T], h, c."""

    def __call__(self, windows: mx.array, h: mx.array, c: mx.array) -> tuple[mx.array, mx.array, mx.array]: ...


def windows_of(samples: np.ndarray, context: np.ndarray) -> np.ndarray:
    """samples [B, T * 512] and the context before them [B, 64] -> [B, T, 576]."""
    batch = samples.shape[0]
    steps = samples.shape[1] // WINDOW
    joined = np.concatenate([context, samples], axis=1)
    index = np.arange(steps)[:, None] * WINDOW + np.arange(CONTEXT + WINDOW)[None, :]
    return joined[:, index].reshape(batch, steps, CONTEXT + WINDOW)


class VadStream:
    """`batch` independent streams of 16 kHz audio -> a speech probability per 32 ms window."""

    def __init__(self, model: WindowModel, batch: int = 1) -> None:
        self.model, self.batch = model, batch
        self.reset()

    def reset(self) -> None:
        """A new stream: zero context, zero LSTM state, nothing pending."""
        self.context = np.zeros((self.batch, CONTEXT), np.float32)
        self.h = mx.zeros((self.batch, HIDDEN))
        self.c = mx.zeros((self.batch, HIDDEN))
        mx.eval(self.h, self.c)  # materialised here: a stream made on one thread may be fed on another
        self._pending = np.zeros((self.batch, 0), np.float32)
        self.windows = 0  # windows judged so far

    @property
    def pending(self) -> int:
        """Samples waiting for their window to be complete."""
        return self._pending.shape[1]

    def push(self, samples: np.ndarray) -> np.ndarray:
        """samples [n] (one stream) or [batch, n] -> float32 probabilities of the windows completed,
        [T] or [batch, T] (T may be 0)."""
        single = samples.ndim == 1
        block = np.asarray(samples, np.float32).reshape(self.batch, -1) if single else samples
        if block.shape[0] != self.batch:
            raise ValueError(
                f"this stream has {self.batch} rows, the block has {block.shape[0]}: use VadStream(batch=)"
            )
        joined = np.concatenate([self._pending, block.astype(np.float32, copy=False)], axis=1)
        whole = joined.shape[1] // WINDOW * WINDOW
        self._pending = joined[:, whole:]
        probs = self._run(joined[:, :whole])
        return probs[0] if single else probs

    def flush(self) -> np.ndarray:
        """The pending samples zero-padded to a last window (as the reference pads a clip's last window)."""
        if self.pending == 0:
            probs = np.zeros((self.batch, 0), np.float32)
        else:
            probs = self.push(np.zeros((self.batch, WINDOW - self.pending), np.float32))
        return probs[0] if self.batch == 1 else probs

    def _run(self, samples: np.ndarray) -> np.ndarray:
        out: list[np.ndarray] = []
        step = MAX_WINDOWS_PER_CALL * WINDOW
        for lo in range(0, samples.shape[1], step):
            part = samples[:, lo : lo + step]
            windows = mx.array(windows_of(part, self.context))
            probs, self.h, self.c = self.model(windows, self.h, self.c)
            mx.eval(probs, self.h, self.c)
            out.append(np.array(probs, np.float32))
            self.context = part[:, -CONTEXT:]
            self.windows += part.shape[1] // WINDOW
        return np.concatenate(out, axis=1) if out else np.zeros((self.batch, 0), np.float32)


def probabilities_of(model: WindowModel, wave: np.ndarray, stream: Optional[VadStream] = None) -> np.ndarray:
    """One clip from a fresh state: ceil(n / 512) probabilities (one for a clip shorter than 512)."""
    stream = stream or VadStream(model)
    stream.reset()
    return np.concatenate([stream.push(wave), stream.flush()])
