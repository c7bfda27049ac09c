"""The decoding thread: 48 kHz stereo blocks in, commits out; a gap finalises; END drains all."""

import time
from typing import Optional

import numpy as np
import pytest
from dictation_helpers import burst, silence

from mlx_qwen3asr.streaming import LiveSession
from mlx_qwen3asr.vad.energy import EnergyVad  # synthetic bursts: the level rule (--vad energy)
from mlx_qwen3asr_app.capture import Block, Gap, Marker
from mlx_qwen3asr_app.worker import Worker, make_queue


class CountingEngine:
    language = ""

    def partial(self, audio: np.ndarray, voiced: Optional[np.ndarray] = None) -> str:
        return ""

    def final(self, audio: np.ndarray) -> str:
        return f"{len(audio) / 16000:.2f} s"


def as_device_blocks(audio16k: np.ndarray) -> list[Block]:
    """The same sound as a 48 kHz stereo device would deliver it, in 30 ms blocks."""
    stereo = np.repeat(np.repeat(audio16k, 3)[:, None], 2, axis=1)
    return [Block(stereo[i : i + 1440], 48000, 0.0) for i in range(0, len(stereo), 1440)]


def run_worker(items: list, events: Optional[list] = None) -> list[str]:
    events = [] if events is None else events
    blocks = make_queue()
    worker = Worker(blocks, LiveSession.on_engine(CountingEngine(), channels_last=True, vad=EnergyVad()), events.append)
    worker.start()
    for item in items:
        blocks.put(item)
    worker.join(timeout=30)
    assert worker.finished.is_set(), "END must finish the worker"
    return [e.text for e in events if e.type == "commit"]


def test_everything_queued_before_end_is_decoded_and_committed():
    speech = np.concatenate([silence(1.0), burst(1.0), silence(1.0), burst(1.0, seed=2)])
    texts = run_worker(as_device_blocks(speech) + [Marker.END])
    assert len(texts) == 2, f"the second utterance, still open at END, is committed too: {texts}"


def test_a_gap_finalises_the_open_utterance_and_capture_goes_on():
    before = as_device_blocks(np.concatenate([silence(0.5), burst(1.0)]))
    after = as_device_blocks(np.concatenate([silence(0.5), burst(1.0, seed=3), silence(1.0)]))
    texts = run_worker(before + [Marker.GAP] + after + [Marker.END])
    assert len(texts) == 2, f"gap: one utterance committed before, one after: {texts}"


def test_lost_audio_ends_the_utterance_at_the_gap_and_later_times_count_it():
    before = as_device_blocks(np.concatenate([silence(0.5), burst(1.0)]))
    after = as_device_blocks(np.concatenate([burst(1.0, seed=3), silence(1.0)]))  # speech goes on after the gap
    events: list = []
    texts = run_worker(before + [Gap(7.0)] + after + [Marker.END], events)
    commits, gap = [e for e in events if e.type == "commit"], next(e for e in events if e.type == "gap")
    assert len(texts) == 2, f"never spliced across the gap: {texts}"
    assert commits[0].end <= gap.start == pytest.approx(1.5, abs=0.05), "the gap is where the loss was"
    assert commits[1].start >= gap.end == pytest.approx(8.5, abs=0.05), "times after it count the lost 7 s"


def test_the_backlog_is_the_audio_waiting_in_the_queue():
    blocks = make_queue()
    worker = Worker(
        blocks, LiveSession.on_engine(CountingEngine(), channels_last=True, vad=EnergyVad()), lambda _: None
    )
    for block in as_device_blocks(silence(3.0)):  # 100 blocks of 30 ms, nobody decoding
        blocks.put(block)
    assert worker.backlog_seconds == pytest.approx(3.0), "3 s of captured audio wait to be decoded"


def test_while_paused_the_open_utterance_is_committed_and_later_audio_is_dropped():
    events: list = []
    blocks = make_queue()
    worker = Worker(blocks, LiveSession.on_engine(CountingEngine(), channels_last=True, vad=EnergyVad()), events.append)
    worker.start()
    for block in as_device_blocks(np.concatenate([silence(0.5), burst(1.0)])):
        blocks.put(block)
    while not blocks.empty():
        time.sleep(0.01)
    time.sleep(0.2)  # the last block taken is fed too
    worker.paused.set()
    for item in as_device_blocks(np.concatenate([burst(1.0, seed=4), silence(1.0)])) + [Marker.END]:
        blocks.put(item)
    worker.join(timeout=30)
    texts = [e.text for e in events if e.type == "commit"]
    assert texts == ["1.50 s"], f"the 1 s burst with its 0.5 s pre-roll, then nothing: {texts}"
