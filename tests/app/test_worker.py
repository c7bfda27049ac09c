"""The decoding thread: 48 kHz stereo blocks in, commits out; a gap finalises; END drains all."""

from typing import Optional

import numpy as np
import pytest

from app.capture import Block, Gap, Marker
from app.pipeline import Pipeline
from app.worker import Worker, make_queue
from dictation_helpers import burst, silence


class CountingEngine:
    language = ""

    def partial(self, audio: np.ndarray) -> str:
        return ""

    def final(self, audio: np.ndarray) -> str:
        return f"{len(audio) / 16000:.2f} s"


def as_device_blocks(audio16k: np.ndarray) -> list[Block]:
    """The same sound as a 48 kHz stereo device would deliver it, in 30 ms blocks."""
    stereo = np.repeat(np.repeat(audio16k, 3)[:, None], 2, axis=1)
    return [Block(stereo[i : i + 1440], 48000, 0.0) for i in range(0, len(stereo), 1440)]


def run_worker(items: list, commits: Optional[list] = None) -> list[str]:
    commits = [] if commits is None else commits
    blocks = make_queue()
    worker = Worker(blocks, Pipeline(CountingEngine(), commits.append, lambda _: None))
    worker.start()
    for item in items:
        blocks.put(item)
    worker.join(timeout=30)
    assert worker.finished.is_set(), "END must finish the worker"
    return [c.text for c in commits]


def test_everything_queued_before_end_is_decoded_and_committed():
    speech = np.concatenate([silence(1.0), burst(1.0), silence(1.0), burst(1.0, seed=2)])
    texts = run_worker(as_device_blocks(speech) + [Marker.END])
    assert len(texts) == 2, f"the second utterance, still open at END, is committed too: {texts}"


def test_a_gap_finalises_the_open_utterance_and_capture_goes_on():
    before = as_device_blocks(np.concatenate([silence(0.5), burst(1.0)]))
    after = as_device_blocks(np.concatenate([silence(0.5), burst(1.0, seed=3), silence(1.0)]))
    texts = run_worker(before + [Marker.GAP] + after + [Marker.END])
    assert len(texts) == 2, f"gap: one utterance committed before, one after: {texts}"


def test_lost_audio_ends_the_utterance_at_the_gap_and_marks_it_in_the_transcript():
    before = as_device_blocks(np.concatenate([silence(0.5), burst(1.0)]))
    after = as_device_blocks(np.concatenate([burst(1.0, seed=3), silence(1.0)]))  # speech goes on after the gap
    commits: list = []
    texts = run_worker(before + [Gap(7.0)] + after + [Marker.END], commits)
    assert texts[1] == "[… 7.0 s of audio lost …]" and len(texts) == 3, f"never spliced across the gap: {texts}"
    assert commits[0].end <= commits[1].start == pytest.approx(1.5, abs=0.05), "the mark is where the loss was"
    assert commits[2].start >= commits[1].end == pytest.approx(8.5, abs=0.05), "times after it count the lost 7 s"


def test_the_backlog_is_the_audio_waiting_in_the_queue():
    blocks = make_queue()
    worker = Worker(blocks, Pipeline(CountingEngine(), lambda _: None, lambda _: None))
    for block in as_device_blocks(silence(3.0)):  # 100 blocks of 30 ms, nobody decoding
        blocks.put(block)
    assert worker.backlog_seconds == pytest.approx(3.0), "3 s of captured audio wait to be decoded"
