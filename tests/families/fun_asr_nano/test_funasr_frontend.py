"""The front end's pure functions: LFR stacking at every length, the 400-sample minimum."""

import numpy as np
import pytest

from mlx_qwen3asr.audio.fbank import fbank, stack_lfr


def official_lfr(frames: np.ndarray, n: int = 7, stride: int = 6) -> np.ndarray:
    """FunAsrNanoFeatureExtractor._apply_lfr, step by step in numpy: pad 3 first / 3 last frames, more
    last frames if the last window needs them, then windows of n every stride, frame-major."""
    left, right = (n - 1) // 2, n - 1 - (n - 1) // 2
    padded = np.concatenate([np.repeat(frames[:1], left, 0), frames, np.repeat(frames[-1:], right, 0)])
    rows = (len(frames) + stride - 1) // stride
    need = (rows - 1) * stride + n
    if need > len(padded):
        padded = np.concatenate([padded, np.repeat(padded[-1:], need - len(padded), 0)])
    return np.stack([padded[i * stride : i * stride + n].reshape(-1) for i in range(rows)])


@pytest.mark.parametrize("n_frames", range(1, 27))
def test_lfr_stacks_like_the_official_extractor_at_every_length(n_frames):
    frames = np.arange(n_frames * 80, dtype=np.float32).reshape(n_frames, 80)
    ours = stack_lfr(frames)
    assert ours.shape == (-(-n_frames // 6), 560)
    np.testing.assert_array_equal(ours, official_lfr(frames))


def test_fbank_frames_are_400_samples_every_160():
    assert fbank(np.zeros(399, np.float32)).shape == (0, 80), "under one frame: none (the official refuses)"
    assert fbank(np.zeros(400, np.float32)).shape == (1, 80)
    assert fbank(np.zeros(16000, np.float32)).shape == (98, 80)  # 1 + (16000 - 400) // 160
    assert np.all(fbank(np.zeros(400, np.float32)) == np.float32(np.log(np.finfo(np.float32).eps)))
