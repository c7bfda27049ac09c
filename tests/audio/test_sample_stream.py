"""Blocks at any rate and channel count become 16 kHz mono, block edges unnoticeable (SampleStream:
the dictation app's device blocks and the streaming session's fed blocks)."""

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.audio import SampleStream


def sine(freq: float, rate: int, seconds: float) -> np.ndarray:
    return (0.5 * np.sin(2 * np.pi * freq * np.arange(int(rate * seconds)) / rate)).astype(np.float32)


def convert_in_blocks(conditioner: SampleStream, frames: np.ndarray, rate: int, block: int) -> np.ndarray:
    out = [conditioner.convert(frames[i : i + block], rate) for i in range(0, len(frames), block)]
    return np.concatenate(out + [conditioner.flush()])


def test_48k_stereo_blocks_become_16k_mono_equal_to_whole_file_resampling():
    left, right = sine(440, 48000, 2.0), sine(440, 48000, 2.0) * 0.5
    got = convert_in_blocks(SampleStream(channels_last=True), np.stack([left, right], axis=1), 48000, 1323)
    expected = mq.audio.resample((left + right) / 2, 48000, 16000)
    assert abs(len(got) - len(expected)) <= 1, f"{len(got)} samples vs {len(expected)}"
    n = min(len(got), len(expected))
    assert np.max(np.abs(got[:n] - expected[:n])) < 1e-3, "streamed resampling must match whole-file"


def test_int16_blocks_are_scaled_to_unit_range():
    frames = (sine(300, 16000, 0.5) * 32767).astype(np.int16)[:, None]
    got = convert_in_blocks(SampleStream(channels_last=True), frames, 16000, 480)
    np.testing.assert_allclose(got, frames[:, 0] / 32768, atol=1e-6, err_msg="int16 -> float")


def test_a_rate_change_flushes_the_old_resampler_first():
    conditioner = SampleStream(channels_last=True)
    first = convert_in_blocks(conditioner, sine(440, 44100, 1.0)[:, None], 44100, 1323)
    second = conditioner.convert(sine(440, 16000, 0.5)[:, None], 16000)
    assert abs(len(first) - 16000) <= 1 and len(second) == 8000, f"lengths {len(first)}, {len(second)}"


def test_short_device_blocks_of_known_layout_are_frames_by_channels():
    stream = SampleStream(channels_last=True)
    got = stream.convert(np.array([[0.5, -0.5], [0.25, 0.25]], np.float32))
    np.testing.assert_array_equal(got, [0.0, 0.25])


def test_a_channels_first_block_fed_to_a_session_is_averaged_not_taken_as_samples():
    left, right = sine(440, 16000, 0.1), sine(880, 16000, 0.1)
    got = SampleStream().convert(np.stack([left, right]))
    np.testing.assert_allclose(got, (left + right) / 2, atol=1e-7)


def test_nan_in_a_streamed_block_names_the_sample_and_where_the_block_starts():
    stream = SampleStream()
    stream.convert(np.zeros(1600, np.float32))
    block = np.zeros(800, np.float32)
    block[37] = np.nan
    with pytest.raises(
        ValueError, match=r"block starting at input sample 1600 has a non-finite sample \(nan\) at index 37"
    ):
        stream.convert(block)


def test_int32_blocks_are_taken_like_offline_arrays():
    block = np.array([2**30, -(2**31), 0] * 100, np.int32)
    np.testing.assert_array_equal(SampleStream().convert(block), mq.prepare_audio(block))
