"""--input: a file goes into the queue like a microphone would deliver it."""

import queue

import numpy as np
import pytest
from dictation_helpers import RATE, burst, write_wav

from mlx_qwen3asr_app.capture import Block, Marker
from mlx_qwen3asr_app.errors import AppError
from mlx_qwen3asr_app.replay import FileSource


class FakeTime:
    def __init__(self) -> None:
        self.now = 50.0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def drain(blocks: queue.Queue) -> list:
    items = []
    while not items or items[-1] is not Marker.END:
        items.append(blocks.get(timeout=5))
    return items


def test_real_time_replay_stamps_each_block_when_its_last_sample_would_be_captured(tmp_path):
    samples = (burst(1.0) * 32767).astype(np.int16)
    fake, blocks = FakeTime(), queue.Queue()
    source = FileSource(str(write_wav(tmp_path / "a.wav", samples)), blocks, clock=fake.clock, sleep=fake.sleep)
    source.start()
    items = drain(blocks)
    chunks = [i for i in items if isinstance(i, Block)]
    assert len(chunks) == 34 and items[-1] is Marker.END, f"1 s in 30 ms blocks, then END: {len(chunks)}"
    ends = np.cumsum([len(c.samples) for c in chunks])
    assert all(abs(c.time - (50.0 + e / RATE)) < 1e-9 for c, e in zip(chunks, ends)), "real-time stamps"
    np.testing.assert_allclose(np.concatenate([c.samples[:, 0] for c in chunks]), samples / 32768, atol=1e-7)
    assert abs(fake.now - 51.0) < 1e-9, "replay took the file's duration"


def test_fast_replay_does_not_sleep(tmp_path):
    fake, blocks = FakeTime(), queue.Queue()
    path = write_wav(tmp_path / "a.wav", np.zeros(RATE, np.int16))
    FileSource(str(path), blocks, fast=True, clock=fake.clock, sleep=fake.sleep).start()
    assert len(drain(blocks)) == 35 and fake.now == 50.0, "fast: all blocks, no waiting"


def test_an_unreadable_input_file_is_a_clear_error(tmp_path):
    with pytest.raises(AppError, match="Cannot read --input"):
        FileSource(str(tmp_path / "missing.wav"), queue.Queue())
