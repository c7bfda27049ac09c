"""The one growable sample buffer (streaming/input.py): what goes in comes out, by stream index and in
order, across growth and drops, however the samples arrive."""

import numpy as np

from mlx_qwen3asr.streaming.input import SampleBuffer


def test_samples_fed_in_any_pieces_come_back_by_index_and_in_order_across_growth_and_drops():
    stream = np.arange(200_000, dtype=np.float32)  # more than the 4 s the buffer starts with
    buffer, taken, at = SampleBuffer(), [], 0
    for size in [1, 2, 3, 50_000, 1, 70_001, 7, 79_985]:
        buffer.append(stream[at : at + size])
        at += size
        assert buffer.end == at, f"the buffer must end at the stream's sample {at}, got {buffer.end}"
        assert np.array_equal(buffer.get(buffer.start, buffer.end), stream[buffer.start : at]), "get by index"
        taken.append(buffer.take(min(buffer.size, 30_000)))
        dropped = min(5, buffer.size)  # what a reader no longer needs
        buffer.drop_before(buffer.start + dropped)
        taken.append(stream[buffer.start - dropped : buffer.start])
    taken.append(buffer.take())
    assert buffer.size == 0 and buffer.start == len(stream), (buffer.size, buffer.start)
    assert np.array_equal(np.concatenate(taken), stream), "take() and drops must cover the stream exactly once"
