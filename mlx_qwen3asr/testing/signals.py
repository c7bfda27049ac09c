"""Synthetic sound for tests and benchmarks of voice activity: speech-like bursts, noise, silence;
write_wav to put one in a file."""

import wave

import numpy as np

RATE = 16000


def burst(seconds: float, level_db: float = -20.0, seed: int = 0) -> np.ndarray:
    """Speech-like sound: noise at level_db RMS with a 4 Hz syllable envelope that never drops out."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * RATE)) / RATE
    envelope = 0.6 + 0.4 * np.sin(2 * np.pi * 4 * t)
    wave_ = rng.standard_normal(len(t)) * envelope
    return (wave_ / np.sqrt(np.mean(wave_**2)) * 10 ** (level_db / 20)).astype(np.float32)


def noise(seconds: float, level_db: float, seed: int = 1) -> np.ndarray:
    """Steady white noise at level_db RMS."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(int(seconds * RATE)) * 10 ** (level_db / 20)).astype(np.float32)


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * RATE), np.float32)


def clicks(seconds: float, at: tuple = (0.5, 1.5, 2.5), click_seconds: float = 0.01) -> np.ndarray:
    """Digital silence with short full-scale-ish clicks (a bumped microphone, a key press)."""
    audio = silence(seconds)
    for t in at:
        audio[int(t * RATE) : int((t + click_seconds) * RATE)] = 0.8
    return audio


def write_wav(path, samples: np.ndarray, rate: int = RATE) -> None:
    """16-bit mono WAV of float samples in [-1, 1] (clipped)."""
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(np.round(np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())


def joined(parts: list, seconds: float) -> np.ndarray:
    """The parts one after another, cut or zero-padded to `seconds` (a long clip made of short ones)."""
    audio = np.concatenate([np.asarray(p, np.float32) for p in parts])[: int(seconds * RATE)]
    return np.pad(audio, (0, int(seconds * RATE) - len(audio)))
