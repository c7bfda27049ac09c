"""Fun-ASR-Nano front end: waveform -> kaldi fbank -> LFR stacking, as transformers'
`FunAsrNanoFeatureExtractor` (`torchaudio.compliance.kaldi.fbank` with its defaults) computes it.

    wave [N] float32 16 kHz, unit scale (no x 32768, unlike FunASR's own toolkit; no dither)
    -> frames of 400 samples every 160 (snip_edges: F = 1 + (N - 400) // 160; N < 400 gives none)
    -> per frame: minus its mean -> pre-emphasis 0.97 (y[0] = x[0] - 0.97 x[0]) -> symmetric Hamming
       -> zero-pad to 512 -> |rfft|^2 [F, 257] -> 80 kaldi mel triangles (20 Hz..8 kHz, no Nyquist bin)
       -> ln(max(., float32 eps))                                          [F, 80]
    -> LFR 7/6: first frame repeated 3x in front, last frame at the end as needed; row i = frames
       [6i, 6i + 7) flattened frame-major                                   [T = ceil(F / 6), 560]
No CMVN: neither the -hf release nor the original FunASR config ships one.

Precision: float32 FFT round-off is relative to each frame's peak, so log bins 10-16 nats below it
differ by up to ~6e-4 between correct implementations; typical entries agree to ~1e-5.
"""

from functools import cache

import mlx.core as mx
import numpy as np

SAMPLE_RATE = 16000
FRAME_LENGTH = 400  # 25 ms
FRAME_SHIFT = 160  # 10 ms
N_FFT = 512  # the frame zero-padded to the next power of two
N_MELS = 80
LOW_FREQ, HIGH_FREQ = 20.0, SAMPLE_RATE / 2
PREEMPHASIS = 0.97
LOG_FLOOR = float(np.finfo(np.float32).eps)  # ln floor: -15.942385
LFR_FRAMES, LFR_STRIDE = 7, 6
LFR_SECONDS = LFR_STRIDE * FRAME_SHIFT / SAMPLE_RATE  # 0.06 s of audio per LFR frame (one audio token)


def _mel(freq: np.ndarray) -> np.ndarray:
    return 1127.0 * np.log(1.0 + freq / 700.0)


@cache
def mel_banks(n_mels: int = N_MELS) -> np.ndarray:
    """Kaldi's triangular filters on the 256 lower FFT bins, plus a zero row for the Nyquist bin: [257, n_mels]."""
    low, high = _mel(np.float64(LOW_FREQ)), _mel(np.float64(HIGH_FREQ))
    delta = (high - low) / (n_mels + 1)
    edges = low + delta * np.arange(n_mels + 2)
    left, center, right = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    mel = _mel(SAMPLE_RATE / N_FFT * np.arange(N_FFT // 2))[None]
    banks = np.maximum(0.0, np.minimum((mel - left) / (center - left), (right - mel) / (right - center)))
    return np.concatenate([banks, np.zeros((n_mels, 1))], axis=1).T.astype(np.float32)


@cache
def hamming() -> np.ndarray:
    """Symmetric Hamming window of FRAME_LENGTH samples (torch.hamming_window(periodic=False))."""
    n = np.arange(FRAME_LENGTH)
    return (0.54 - 0.46 * np.cos(2 * np.pi * n / (FRAME_LENGTH - 1))).astype(np.float32)


def fbank(wave: np.ndarray, n_mels: int = N_MELS) -> np.ndarray:
    """Kaldi log-mel filterbank of a 16 kHz waveform: [F, n_mels] float32 (F = 0 under 400 samples)."""
    wave = np.asarray(wave, dtype=np.float32)
    if wave.ndim != 1:
        raise ValueError(f"fbank expects a 1-D waveform, got shape {wave.shape}")
    n_frames = 1 + (len(wave) - FRAME_LENGTH) // FRAME_SHIFT if len(wave) >= FRAME_LENGTH else 0
    if n_frames == 0:
        return np.zeros((0, n_mels), np.float32)
    frames = np.lib.stride_tricks.sliding_window_view(wave, FRAME_LENGTH)[::FRAME_SHIFT][:n_frames]
    frames = frames - frames.mean(axis=1, keepdims=True, dtype=np.float32)
    previous = np.concatenate([frames[:, :1], frames[:, :-1]], axis=1)
    frames = (frames - np.float32(PREEMPHASIS) * previous) * hamming()
    spectrum = np.abs(np.fft.rfft(frames, n=N_FFT, axis=1).astype(np.complex64)) ** 2
    return np.log(np.maximum(spectrum @ mel_banks(n_mels), np.float32(LOG_FLOOR)))


def stack_lfr(frames: np.ndarray, n: int = LFR_FRAMES, stride: int = LFR_STRIDE) -> np.ndarray:
    """Low frame rate: [F, bins] -> [ceil(F / stride), n * bins], each row n frames, every stride-th."""
    if frames.shape[0] == 0:
        return np.zeros((0, n * frames.shape[1]), frames.dtype)
    rows = -(-frames.shape[0] // stride)
    left = (n - 1) // 2
    right = max(0, (rows - 1) * stride + n - left - frames.shape[0])  # rows past the end the last window reads
    padded = np.concatenate([np.repeat(frames[:1], left, axis=0), frames, np.repeat(frames[-1:], right, axis=0)])
    index = stride * np.arange(rows)[:, None] + np.arange(n)[None]
    return padded[index].reshape(rows, -1)


def features(wave: np.ndarray) -> mx.array:
    """Waveform -> encoder input [T, 560] float32 (fbank then LFR)."""
    return mx.array(stack_lfr(fbank(wave)))
