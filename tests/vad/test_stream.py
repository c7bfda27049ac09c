"""VadStream, the live interface: blocks of any length, several streams in one call."""

import numpy as np

import mlx_qwen3asr as mq
from tests.vad_goldens import goldens, wave_of

# float32 sums in another order when windows are batched differently: ~1e-5 apart (see test_vad's TOLERANCE)
BLOCKING = 1e-4


def test_blocks_of_any_length_give_the_probabilities_of_the_whole_clip():
    vad = mq.load_vad()
    wave = wave_of("speech_snr10")
    stream = vad.stream()
    pushed = [stream.push(wave[i : i + 700]) for i in range(0, len(wave), 700)]
    got = np.concatenate([*pushed, stream.flush()])
    expected = np.array(goldens()["clips"]["speech_snr10"]["probabilities"], np.float32)
    assert got.shape == expected.shape and float(np.max(np.abs(got - expected))) < BLOCKING


def test_a_batch_of_streams_gives_each_stream_its_own_probabilities():
    """Nine streams: more than one block of rows in each of fast.py's products (8 streams a block)."""
    vad = mq.load_vad()
    names = [n for n in goldens()["clips"] if n not in ("long_60s", "speech_8k")]
    assert len(names) == 9, names
    length = min(len(wave_of(n)) for n in names) // 512 * 512
    rows = np.stack([wave_of(n)[:length] for n in names])
    stream = vad.stream(batch=len(names))
    got = np.concatenate([stream.push(rows[:, i : i + 4096]) for i in range(0, length, 4096)], axis=1)
    for row, name in zip(got, names):
        expected = np.array(goldens()["clips"][name]["probabilities"][: length // 512], np.float32)
        assert float(np.max(np.abs(row - expected))) < BLOCKING, name
