"""Audio features of a growing clip, encoding only the attention windows whose input changed.

    audio [samples] (the streaming window, grows by a chunk per step)
      -> |STFT|^2 frames [samples // 160, 201]     (a frame reads 200 samples either side of its centre)
      -> per 800-frame encoder window w: L_w = log10(mel power)      [800, 128], never clamped yet
      -> floor = max over all windows of L - 8 (the official clamp, over the whole clip)
      -> mel_w = (max(L_w, floor) + 4) / 4 -> encoder window w -> features [104, output_dim]

Why this is exact: the conv stem works on 100-frame chunks and attention never crosses 800-frame
windows, so window w's features depend only on mel_w. mel_w depends on later audio in one way
only: the clamp floor, which rises when louder audio arrives. A cached window stays valid while
clamping it at the old and at the new floor gives the same values, i.e. the floor is unchanged or
nothing in the window lies below either floor (its minimum is kept). Otherwise it is re-encoded
("keyed rebuild"). The result equals `model.encode(log_mel_spectrogram(audio))` up to float
round-off (the mel matmul is done per window, so its blocking differs; ~1e-7), which keeps the
offline semantics (clamp over the whole decoded clip) instead of inventing a new normalisation.
How often the clamp bites (share of mel values under the floor in 30 s of the espeak fixtures):
19% with digital silence between words, 2.4% over -65 dBFS noise, 0.08% over -50 dBFS noise. A
window is rebuilt only if it holds such values and the clip's maximum rose after it was cached,
which happens in the first seconds of a window and rarely later (see scripts/bench/streaming.py).

A window is cached once its last frame no longer touches the end of the audio (the STFT reflects the
signal there), i.e. once the audio reaches 40 samples past the window.
"""

from dataclasses import dataclass

import mlx.core as mx
import numpy as np

from ...audio.features import HOP_LENGTH, N_FFT, mel_filters, power_spectrogram
from ..recogniser import encode_audio
from .encoder import n_audio_tokens

CLAMP_DECADES = 8.0  # the official mel clamps to (max - 8) in log10 units


def encode_windows(model, mel: mx.array, first: bool) -> mx.array:
    """Encoder output of `mel` [frames, n_mels] starting on a window boundary.

    `first`: mel starts the clip. Otherwise the clip has earlier chunks, so the official batch pads
    this mel's partial last chunk to a full chunk even when it is the only chunk here.
    """
    tower = model.audio_tower
    if first:
        return tower(mel)
    frames, size = mel.shape[0], tower.args.chunk_frames
    if frames % size:
        mel = mx.pad(mel, [(0, size - frames % size), (0, 0)])
    return tower.encode_tokens(tower.embed_chunks(mel)[: n_audio_tokens(frames, size, tower.args.tokens_per_chunk)])


@dataclass
class _CachedWindow:
    """One cached encoder window: the extremes of its unclamped log-mel, the floor it was encoded at."""

    log_max: float
    log_min: float
    floor: float
    features: mx.array  # [tokens_per_window, hidden]

    def valid_at(self, floor: float) -> bool:
        return floor == self.floor or self.log_min >= max(floor, self.floor)


class EncoderCache:
    """Features of a clip that only grows at its end (or is cut back), re-encoding changed windows."""

    def __init__(self, model):
        self.model = model
        args = model.audio_tower.args
        self.window_frames = args.window_frames
        self.window_tokens = args.attention_window
        self.windows: list[_CachedWindow] = []
        self.rebuilds = 0  # windows re-encoded because the clamp floor moved (for benchmarks)

    def reset(self) -> None:
        """Forget everything: the next clip starts somewhere else."""
        self.windows = []

    def _complete_windows(self, n_samples: int) -> int:
        """Windows whose frames all lie inside the audio (the last frame reads N_FFT // 2 past it)."""
        per_window = self.window_frames * HOP_LENGTH
        return max(0, (n_samples - N_FFT // 2 + HOP_LENGTH) // per_window)

    def features(self, audio: np.ndarray) -> tuple[mx.array, int]:
        """(features [n_audio_tokens, hidden], how many leading tokens are unchanged since last call)."""
        n_frames = audio.shape[0] // HOP_LENGTH
        if n_frames <= self.window_frames:  # one window: nothing to reuse
            self.windows = []
            return encode_audio(self.model, audio), 0
        power = power_spectrogram(mx.array(audio))
        complete = self._complete_windows(audio.shape[0])
        del self.windows[complete:]  # the clip was cut back inside these
        n_windows = -(-n_frames // self.window_frames)
        logs = [self._log_mel(power, w) for w in range(len(self.windows), n_windows)]
        log_max = max([w.log_max for w in self.windows] + [float(x.max()) for x in logs])
        floor = log_max - CLAMP_DECADES
        kept = next((i for i, w in enumerate(self.windows) if not w.valid_at(floor)), len(self.windows))
        self.rebuilds += len(self.windows) - kept
        logs = [self._log_mel(power, w) for w in range(kept, len(self.windows))] + logs
        del self.windows[kept:]
        mel = (mx.maximum(mx.concatenate(logs), floor) + 4.0) / 4.0
        new = encode_windows(self.model, mel.astype(self.model.dtype), first=kept == 0)
        for i in range(complete - kept):
            tokens = slice(i * self.window_tokens, (i + 1) * self.window_tokens)
            log = logs[i]
            self.windows.append(_CachedWindow(float(log.max()), float(log.min()), floor, new[tokens]))
        old = [w.features for w in self.windows[:kept]]
        return mx.concatenate(old + [new]) if old else new, kept * self.window_tokens

    def _log_mel(self, power: mx.array, window: int) -> mx.array:
        """Unclamped log10 mel of one window [<= 800, n_mels]; one matmul per window keeps it bitwise
        stable as the clip grows (BLAS blocking depends on the row count)."""
        frames = power[window * self.window_frames : (window + 1) * self.window_frames]
        filters = mel_filters(self.model.audio_tower.args.num_mel_bins)
        return mx.log10(mx.maximum(frames @ filters, 1e-10))
