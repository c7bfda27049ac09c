"""Audio input stage: a file, an array or an (array, rate) pair -> float32 mono waveform at 16 kHz.

    path, RIFF/WAVE header -> walk the chunks to fmt + data -> frames [n, channels]
                              (uint8 / int16 / 24-bit / int32 / float32 / float64)
    path, a playlist       -> ValueError (a playlist names other files; it is not audio)
    path, anything else    -> ffmpeg, this file only (ffmpeg.py) -f f32le -ac 1 -ar 16000  [n] float32
    max_seconds: a longer file is refused from its header (WAV) or after that much (ffmpeg), before
    any resampling: a 1 KB WAV whose header says 1 Hz would otherwise become 1,000 s at 16 kHz
    np.ndarray             -> taken to be at 16 kHz already: [n], [n, ch] or [ch, n] (samples.py)
    (np.ndarray, rate)     -> the same, at `rate`
      -> integers / their full scale, mean over channels      [n] float32, NaN/inf rejected
      -> soxr resample rate -> 16 kHz                         [ceil(n * 16000 / rate)], as librosa
      -> divided by its peak only if the peak exceeds 1.0     [samples] float32, contiguous

`prepare_audio` is the one entry point the rest of the library uses; `load_audio` is its file
reader. This module is a leaf: stdlib, numpy and soxr only.
"""

from __future__ import annotations

import os
import struct
import warnings
from typing import NamedTuple, Optional, Union

import numpy as np
import soxr

from .ffmpeg import decode_with_ffmpeg, playlist_kind
from .samples import SAMPLE_RATE, as_frames, check_sample_rate, scale_to_unit_peak, to_mono

# Below this a file's header is taken to be corrupt or hostile: no speech codec goes under 8 kHz, and
# a 1 Hz header turns each byte into a second of audio.
MIN_FILE_SAMPLE_RATE = 4000

AudioInput = Union[str, os.PathLike, np.ndarray, tuple[np.ndarray, int]]

_PCM, _IEEE_FLOAT, _EXTENSIBLE = 0x0001, 0x0003, 0xFFFE
# An extensible fmt's subformat GUID holds the plain format tag in its first two bytes, then
# this fixed suffix; other suffixes (ambisonics, vendor codecs) are left to ffmpeg.
_SUBFORMAT_GUID_SUFFIX = bytes.fromhex("000000001000800000aa00389b71")
# Writers that cannot seek back to fix the header leave the data size at one of these.
_STREAMING_DATA_SIZES = (0, 0xFFFFFFFF)
# (format tag, bytes per sample) -> how one sample is stored.
_SAMPLE_DTYPES = {
    (_PCM, 1): "u1",
    (_PCM, 2): "<i2",
    (_PCM, 3): "int24",
    (_PCM, 4): "<i4",
    (_IEEE_FLOAT, 4): "<f4",
    (_IEEE_FLOAT, 8): "<f8",
}


class _WavFormat(NamedTuple):
    tag: int
    channels: int
    sample_rate: int
    sample_width: int  # bytes per sample of one channel


def load_audio(
    path: Union[str, os.PathLike], sample_rate: int = SAMPLE_RATE, max_seconds: Optional[float] = None
) -> np.ndarray:
    """Decode an audio file to a float32 mono waveform at `sample_rate`.

    PCM (8/16/24/32-bit) and float (32/64-bit) WAV are parsed here; every other format, WAV
    codecs such as mu-law or ADPCM included, is decoded by ffmpeg when it is on PATH (that file
    only: playlists and other formats that name files are refused). A truncated WAV is decoded as
    far as its data goes, with a warning. A file longer than `max_seconds` (None: no limit), or a
    WAV header below MIN_FILE_SAMPLE_RATE, raises ValueError before the samples are resampled.
    """
    check_sample_rate(sample_rate, "sample_rate")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"Audio file not found: {path}")
    with open(path, "rb") as f:
        header = f.read(12)
    if not header:
        raise ValueError(f"Cannot read {path}: the file is empty (0 bytes)")
    if (kind := playlist_kind(header)) is not None:
        raise ValueError(f"Cannot read {path}: it is a playlist ({kind}), not audio; pass the audio file itself")
    is_wav = header[:4] in (b"RIFF", b"RF64") and header[8:12] == b"WAVE"
    decoded = _read_wav(path) if is_wav else None
    if decoded is None:
        wave = decode_with_ffmpeg(path, sample_rate, max_seconds)
        _check_duration(len(wave) / sample_rate, max_seconds, path)
        return to_mono(wave, sample_rate, path)
    frames, file_rate = decoded
    _check_duration(len(frames) / file_rate, max_seconds, path)
    return resample(to_mono(frames, file_rate, path), file_rate, sample_rate)


def _check_duration(seconds: float, max_seconds: Optional[float], path: str) -> None:
    if max_seconds is not None and seconds > max_seconds:
        raise ValueError(
            f"Cannot read {path}: it is longer than the limit of {max_seconds:g} s of audio; "
            "split it, or raise the limit (the server's --max-audio-seconds)"
        )


def resample(audio: np.ndarray, orig_sr: int, target_sr: int = SAMPLE_RATE) -> np.ndarray:
    """Resample a 1-D waveform from `orig_sr` to `target_sr` Hz: float32 of ceil(n * target / orig)
    samples, the length librosa (the official loader) gives, so mel frame counts agree."""
    check_sample_rate(orig_sr, "orig_sr")
    check_sample_rate(target_sr, "target_sr")
    audio = np.ascontiguousarray(audio, dtype=np.float32)
    if orig_sr == target_sr:
        return audio
    # "HQ" (20-bit precision) is librosa's default resampler, which the official pipeline uses; its
    # ~120 dB noise floor is far below the 80 dB range the log-mel keeps, so "VHQ" only costs time.
    resampled = soxr.resample(audio, orig_sr, target_sr, quality="HQ")
    length = -(-len(audio) * target_sr // orig_sr)
    if len(resampled) >= length:
        return resampled[:length]
    return np.pad(resampled, (0, length - len(resampled)))


def prepare_audio(audio: AudioInput, sample_rate: int = SAMPLE_RATE, max_seconds: Optional[float] = None) -> np.ndarray:
    """Any supported input -> contiguous float32 mono waveform at `sample_rate`.

    - a path (str or os.PathLike): read with `load_audio` (refused beyond `max_seconds`);
    - an np.ndarray: taken to be at `sample_rate` already;
    - an (np.ndarray, rate) tuple: resampled from `rate`.

    Arrays are 1-D (mono samples), or 2-D as (samples, channels) or (channels, samples): the smaller
    dimension is the channels when it is at most MAX_CHANNELS (64), and they are averaged; a shape
    that could be read either way or neither (both dimensions at most 64, equal, or both above 64)
    raises ValueError. A (9, 16000) array is 9 channels of 1 s (the official code reads it as 9 samples).
    Integer samples are divided by their dtype's full scale (uint8 centred at 128); bool, complex
    and object arrays raise TypeError; NaN or inf raises ValueError naming the first bad sample.
    """
    check_sample_rate(sample_rate, "sample_rate")
    if isinstance(audio, (str, os.PathLike)):
        wave = load_audio(audio, sample_rate, max_seconds)
    elif isinstance(audio, np.ndarray):
        wave = to_mono(as_frames(audio), sample_rate, "audio array")
    elif isinstance(audio, tuple) and len(audio) == 2 and isinstance(audio[0], np.ndarray):
        array, rate = audio
        check_sample_rate(rate, "the rate in the (array, sample_rate) tuple")
        wave = resample(to_mono(as_frames(array), rate, "audio array"), rate, sample_rate)
    else:
        raise TypeError(
            f"audio must be a file path, a numpy array at {sample_rate} Hz or an (array, sample_rate) "
            f"tuple, got {type(audio).__name__}; wrap other arrays with np.asarray"
        )
    return np.ascontiguousarray(scale_to_unit_peak(wave), dtype=np.float32)


def _read_wav(path: str) -> Optional[tuple[np.ndarray, int]]:
    """Frames [n, channels] in their stored dtype and the file's rate; None for codecs left to ffmpeg."""
    with open(path, "rb") as f:
        data = f.read()
    fmt, payload, declared_size = _find_fmt_and_data(data, path)
    dtype = _SAMPLE_DTYPES.get((fmt.tag, fmt.sample_width))
    if dtype is None:
        return None
    frame_bytes = fmt.sample_width * fmt.channels
    n_frames = len(payload) // frame_bytes
    if declared_size is not None and declared_size > len(payload):
        problem = f"its data chunk declares {declared_size} bytes but only {len(payload)} are there"
    elif len(payload) % frame_bytes:
        problem = f"it ends in a partial frame ({len(payload) % frame_bytes} of {frame_bytes} bytes)"
    else:
        problem = None
    if problem:
        seconds = n_frames / fmt.sample_rate
        warnings.warn(f"{path} is truncated: {problem}; decoded the first {seconds:.3f} s", stacklevel=3)
    frames = _samples_from_bytes(payload[: n_frames * frame_bytes], dtype)
    return frames.reshape(n_frames, fmt.channels), fmt.sample_rate


def _find_fmt_and_data(data: bytes, path: str) -> tuple[_WavFormat, memoryview, Optional[int]]:
    """Walk the RIFF chunks: the format, the data chunk's bytes, its declared size (None if streamed)."""
    fmt, rf64_data_size, pos = None, None, 12
    while pos + 8 <= len(data):
        chunk_id, size = struct.unpack_from("<4sI", data, pos)
        body = pos + 8
        if chunk_id == b"fmt ":
            fmt = _parse_fmt(data[body : body + size], path)
        elif chunk_id == b"ds64" and size >= 16 and body + 16 <= len(data):
            # RF64 keeps the real 64-bit sizes here: RIFF size, then data size.
            rf64_data_size = struct.unpack_from("<Q", data, body + 8)[0]
        elif chunk_id == b"data":
            if fmt is None:
                raise ValueError(
                    f"Cannot read {path}: its WAV data chunk comes before the fmt chunk; "
                    "re-encode it (ffmpeg -i IN -c:a pcm_s16le OUT.wav)"
                )
            if size == 0xFFFFFFFF and rf64_data_size is not None:
                size = rf64_data_size
            declared = None if size in _STREAMING_DATA_SIZES else size
            end = len(data) if declared is None else body + declared
            return fmt, memoryview(data)[body:end], declared
        pos = body + size + (size & 1)  # chunk bodies are padded to an even length
    raise ValueError(
        f"Cannot read {path}: the WAV file has no {'data' if fmt else 'fmt'} chunk; "
        "it is corrupt or cut off in its header"
    )


def _parse_fmt(body: bytes, path: str) -> _WavFormat:
    if len(body) < 16:
        raise ValueError(f"Cannot read {path}: its WAV fmt chunk has {len(body)} bytes, fewer than 16")
    tag, channels, rate, _byte_rate, _block_align, bits = struct.unpack_from("<HHIIHH", body)
    if tag == _EXTENSIBLE and len(body) >= 40 and body[26:40] == _SUBFORMAT_GUID_SUFFIX:
        tag = struct.unpack_from("<H", body, 24)[0]
    if channels == 0 or rate == 0 or bits == 0:
        raise ValueError(
            f"Cannot read {path}: its WAV fmt chunk says {channels} channels, "
            f"{rate} Hz, {bits} bits; the header is corrupt"
        )
    if rate < MIN_FILE_SAMPLE_RATE:
        raise ValueError(
            f"Cannot read {path}: its WAV header says {rate} Hz, below the {MIN_FILE_SAMPLE_RATE} Hz "
            "any speech recording has; the header is corrupt (re-encode the audio)"
        )
    # Samples narrower than their container (12-bit in 2 bytes) are left-aligned, so the
    # container's full scale is the right divisor.
    return _WavFormat(tag, channels, rate, (bits + 7) // 8)


def _samples_from_bytes(payload: memoryview, dtype: str) -> np.ndarray:
    if dtype != "int24":
        return np.frombuffer(payload, dtype)
    # Each 3-byte sample goes into the top three bytes of an int32 (low byte zero): the sign
    # extends for free and the value is v * 256, whose full scale is int32's 2**31.
    triples = np.frombuffer(payload, np.uint8).reshape(-1, 3)
    padded = np.zeros((len(triples), 4), np.uint8)
    padded[:, 1:] = triples
    return padded.view("<i4").reshape(-1)
