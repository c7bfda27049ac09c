"""Device blocks at any rate and channel count become 16 kHz mono, block edges unnoticeable."""

import numpy as np

import mlx_qwen3asr as mq
from app.capture import Block
from app.conditioner import Conditioner


def sine(freq: float, rate: int, seconds: float) -> np.ndarray:
    return (0.5 * np.sin(2 * np.pi * freq * np.arange(int(rate * seconds)) / rate)).astype(np.float32)


def convert_in_blocks(conditioner: Conditioner, frames: np.ndarray, rate: int, block: int) -> np.ndarray:
    out = [conditioner.convert(Block(frames[i : i + block], rate, 0.0)) for i in range(0, len(frames), block)]
    return np.concatenate(out + [conditioner.flush()])


def test_48k_stereo_blocks_become_16k_mono_equal_to_whole_file_resampling():
    left, right = sine(440, 48000, 2.0), sine(440, 48000, 2.0) * 0.5
    got = convert_in_blocks(Conditioner(), np.stack([left, right], axis=1), 48000, 1323)
    expected = mq.audio.resample((left + right) / 2, 48000, 16000)
    assert abs(len(got) - len(expected)) <= 1, f"{len(got)} samples vs {len(expected)}"
    n = min(len(got), len(expected))
    assert np.max(np.abs(got[:n] - expected[:n])) < 1e-3, "streamed resampling must match whole-file"


def test_int16_blocks_are_scaled_to_unit_range():
    frames = (sine(300, 16000, 0.5) * 32767).astype(np.int16)[:, None]
    got = convert_in_blocks(Conditioner(), frames, 16000, 480)
    np.testing.assert_allclose(got, frames[:, 0] / 32768, atol=1e-6, err_msg="int16 -> float")


def test_a_rate_change_flushes_the_old_resampler_first():
    conditioner = Conditioner()
    first = convert_in_blocks(conditioner, sine(440, 44100, 1.0)[:, None], 44100, 1323)
    second = conditioner.convert(Block(sine(440, 16000, 0.5)[:, None], 16000, 0.0))
    assert abs(len(first) - 16000) <= 1 and len(second) == 8000, f"lengths {len(first)}, {len(second)}"
