"""Incoming samples -> float32 mono at 16 kHz: one rule for files, arrays and streamed blocks.

    array [n] | [n, channels] | [channels, n]
      -> layout: the smaller dimension is the channels when it is at most MAX_CHANNELS; a shape
         that could be read either way ((2, 3), (40, 40)) or neither ((100, 200)) is an error
      -> float32: floats as they are, integers / their full scale (uint8 centred at 128)
      -> mean over channels -> NaN/inf refused, naming the first bad sample and its time
    scale_to_unit_peak: a peak above 1.0 is divided away (the official loader's rule), with a warning

The offline path applies it to a whole clip, the streaming path (SampleStream: the library's
streaming session and the dictation app) to each block it is fed, so the same array gives the same
samples either way. Clipped input (many samples at full scale) warns once.
"""

import warnings
from typing import Optional

import numpy as np
import soxr

SAMPLE_RATE = 16000  # what the model hears; every other rate is resampled to it
MAX_CHANNELS = 64  # microphone arrays go up to here; a larger dimension is samples
CLIPPED_SHARE = 0.01  # more than 1% of samples at full scale (|x| >= CLIP_LEVEL) is clipped audio
CLIP_LEVEL = 0.999


def check_sample_rate(rate: object, name: str) -> None:
    if isinstance(rate, bool) or not isinstance(rate, (int, np.integer)) or rate <= 0:
        raise ValueError(f"{name} must be a positive integer number of Hz, got {rate!r}")


def as_frames(array: np.ndarray) -> np.ndarray:
    """A 1-D array as is; a 2-D one as [samples, channels] by the layout rule above."""
    if array.ndim == 1:
        return array
    if array.ndim != 2:
        raise ValueError(
            f"audio must be 1-D (samples) or 2-D (samples, channels), got shape {array.shape}; "
            "pick one signal from the batch first"
        )
    rows, cols = array.shape
    if rows == 0 or cols == 0:
        return np.zeros((0, 1), array.dtype)
    if (rows, cols) == (1, 1):
        return array.reshape(1, 1)
    if max(rows, cols) <= MAX_CHANNELS or min(rows, cols) > MAX_CHANNELS or rows == cols:
        raise ValueError(
            f"cannot tell channels from samples in an audio array of shape {array.shape}: pass 1-D mono "
            f"samples, or 2-D with more than {MAX_CHANNELS} samples and at most {MAX_CHANNELS} channels"
        )
    return array.T if rows < cols else array


def to_mono(frames: np.ndarray, sample_rate: int, source: str) -> np.ndarray:
    """[n] or [n, channels] samples -> a new, finite float32 array [n]."""
    samples = _to_float32(frames)
    _warn_if_clipped(samples)
    mono = samples.mean(axis=1, dtype=np.float32) if samples.ndim == 2 else samples
    finite = np.isfinite(mono)
    if not finite.all():
        index = int(np.argmax(~finite))
        raise ValueError(
            f"{source} has a non-finite sample ({mono[index]}) at index {index} "
            f"({index / sample_rate:.3f} s); replace NaN/inf first (np.nan_to_num)"
        )
    return mono


def scale_to_unit_peak(wave: np.ndarray) -> np.ndarray:
    """Divided by its peak when that exceeds 1.0 (as the official loader does), with a warning."""
    peak = float(np.max(np.abs(wave))) if wave.size else 0.0
    if peak <= 1.0:
        return wave
    warnings.warn(
        "float audio above full scale (peak > 1.0) was divided by its peak; pass float samples in [-1, 1]",
        stacklevel=3,
    )
    return wave / np.float32(peak)


def _to_float32(array: np.ndarray) -> np.ndarray:
    """A float32 copy, integers mapped by their dtype's full scale onto [-1, 1)."""
    kind = array.dtype.kind
    if kind == "f":
        return array.astype(np.float32)
    if kind in "iu":
        half_scale = float(2 ** (8 * array.dtype.itemsize - 1))
        offset = half_scale if kind == "u" else 0.0  # unsigned audio (8-bit WAV) sits at mid-scale
        return (array.astype(np.float32) - offset) / half_scale
    raise TypeError(
        f"audio samples must be real numbers (float or integer), got dtype {array.dtype}; "
        "pass a float waveform in [-1, 1]"
    )


def _warn_if_clipped(samples: np.ndarray) -> None:
    """Louder-than-full-scale float audio is not clipped: it is scaled (and warned about) instead."""
    magnitude = np.abs(samples)
    if samples.size < 100 or not magnitude.max() <= 1.0:
        return
    if np.count_nonzero(magnitude >= CLIP_LEVEL) > CLIPPED_SHARE * samples.size:
        warnings.warn("the audio is clipped (many samples at full scale): lower the input gain", stacklevel=4)


class SampleStream:
    """Blocks of any layout, dtype and rate -> 16 kHz mono float32, resampled without seams.

    The resampler keeps state across blocks (no clicks at block edges); a change of rate (a device
    reopened with other settings) flushes the old stream's tail first. `channels_last=True` is for
    blocks whose layout is known to be [frames, channels] (a sound card's), however short they are.
    """

    def __init__(self, sample_rate: int = SAMPLE_RATE, channels_last: bool = False):
        check_sample_rate(sample_rate, "sample_rate")
        self.sample_rate, self.channels_last = sample_rate, channels_last
        self._resampler: Optional[soxr.ResampleStream] = None
        self.samples_in = 0  # input samples so far, to name where a bad one is

    def convert(self, block: np.ndarray, sample_rate: Optional[int] = None) -> np.ndarray:
        block = np.asarray(block)
        rate = sample_rate or self.sample_rate
        frames = block if self.channels_last and block.ndim == 2 else as_frames(block)
        where = f"the audio block starting at input sample {self.samples_in}"
        mono = scale_to_unit_peak(to_mono(frames, rate, where))
        self.samples_in += len(mono)
        head = self.flush() if rate != self.sample_rate else np.zeros(0, np.float32)
        self.sample_rate = rate
        if rate == SAMPLE_RATE:
            return np.concatenate([head, mono]) if len(head) else mono
        if self._resampler is None:
            # "HQ" as the offline resampler uses.
            self._resampler = soxr.ResampleStream(rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
        return np.concatenate([head, self._resampler.resample_chunk(mono)])

    def flush(self) -> np.ndarray:
        """The resampler's buffered tail; call at a gap or at the end of the input."""
        if self._resampler is None:
            return np.zeros(0, np.float32)
        tail = self._resampler.resample_chunk(np.zeros(0, np.float32), last=True)
        self._resampler = None
        return tail
