"""Log-mel front end, identical to the official processor (transformers' WhisperFeatureExtractor).

    waveform [samples] 16 kHz float32
      -> reflect-pad 200, frames of 400 every 160, periodic Hann, |rfft|^2   [samples//160 + 1, 201]
      -> drop the last frame                                                  [samples//160, 201]
      -> @ Slaney mel filterbank (128 filters, 0-8 kHz)                       [frames, 128]
      -> log10(max(x, 1e-10)), clamp to (max over the whole clip) - 8, (x + 4) / 4

The clamp uses the clip's own dynamic maximum, so a frame's value depends on the loudest frame
anywhere in the same call: features of a piece of audio depend on what it is computed together with.
"""

from functools import cache

import mlx.core as mx
import numpy as np

from .samples import SAMPLE_RATE

N_FFT = 400  # 25 ms window
HOP_LENGTH = 160  # 10 ms hop: one mel frame per 160 samples
N_MELS = 128


def _hz_to_mel(freq: np.ndarray) -> np.ndarray:
    """Slaney mel scale: linear below 1 kHz, logarithmic above."""
    mels = 3.0 * freq / 200.0
    log_region = freq >= 1000.0
    logstep = 27.0 / np.log(6.4)
    mels[log_region] = 15.0 + np.log(freq[log_region] / 1000.0) * logstep
    return mels


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    freq = 200.0 * mels / 3.0
    log_region = mels >= 15.0
    logstep = np.log(6.4) / 27.0
    freq[log_region] = 1000.0 * np.exp(logstep * (mels[log_region] - 15.0))
    return freq


@cache
def mel_filters(n_mels: int = N_MELS) -> mx.array:
    """Slaney-normalised triangular filters [n_fft//2 + 1, n_mels], computed in float64 like librosa."""
    fft_freqs = np.linspace(0, SAMPLE_RATE // 2, N_FFT // 2 + 1)
    mel_edges = np.linspace(_hz_to_mel(np.array([0.0]))[0], _hz_to_mel(np.array([8000.0]))[0], n_mels + 2)
    hz_edges = _mel_to_hz(mel_edges)
    widths = np.diff(hz_edges)
    slopes = hz_edges[None, :] - fft_freqs[:, None]
    down = -slopes[:, :-2] / widths[:-1]
    up = slopes[:, 2:] / widths[1:]
    filters = np.maximum(0.0, np.minimum(down, up))
    filters *= 2.0 / (hz_edges[2:] - hz_edges[:-2])[None, :]
    return mx.array(filters.astype(np.float32))


@cache
def _hann_window() -> mx.array:
    n = np.arange(N_FFT)
    return mx.array((0.5 - 0.5 * np.cos(2 * np.pi * n / N_FFT)).astype(np.float32))


def power_spectrogram(audio: mx.array) -> mx.array:
    """|STFT|^2 of the centred, reflect-padded signal, last frame dropped: [samples // 160, 201]."""
    pad = N_FFT // 2
    padded = mx.concatenate([audio[1 : pad + 1][::-1], audio, audio[-pad - 1 : -1][::-1]])
    n_frames = audio.shape[0] // HOP_LENGTH
    frames = mx.as_strided(padded, shape=(n_frames, N_FFT), strides=(HOP_LENGTH, 1))
    spectrum = mx.fft.rfft(frames * _hann_window())
    return mx.square(mx.abs(spectrum))


def log_mel_spectrogram(audio, n_mels: int = N_MELS) -> mx.array:
    """Log-mel features [audio.size // 160, n_mels] of a 16 kHz mono float waveform."""
    audio = mx.array(np.asarray(audio, dtype=np.float32)) if not isinstance(audio, mx.array) else audio
    if audio.ndim != 1:
        raise ValueError(f"log_mel_spectrogram expects a 1-D waveform, got shape {audio.shape}")
    if audio.shape[0] <= N_FFT // 2:
        raise ValueError(f"audio too short for a mel frame: {audio.shape[0]} samples, need more than {N_FFT // 2}")
    mel = power_spectrogram(audio.astype(mx.float32)) @ mel_filters(n_mels)
    log_spec = mx.log10(mx.maximum(mel, 1e-10))
    log_spec = mx.maximum(log_spec, log_spec.max() - 8.0)
    return (log_spec + 4.0) / 4.0
