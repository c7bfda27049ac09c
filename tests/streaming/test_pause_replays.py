"""Both pause roads replayed against what they did before their trackers were folded into one
(vad/energy.py PauseTracker): the window engine's 2 s pauses in 100 ms frames and the live segmenter's
in 20 ms frames. `tests/fixtures/streaming/pause_replays.json` was recorded with this file's
`replays()` on main at b9f1e70, before the fold (`python -m tests.streaming.test_pause_replays`
rewrites it: only do that for a change meant to move cuts)."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from mlx_qwen3asr.streaming import StreamingTranscriber
from mlx_qwen3asr.streaming.segmenter import Segmenter
from tests.streaming.test_streaming import FakeClock, FakeEngine, loud, quiet

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures/streaming/pause_replays.json"
WINDOWS = ((0.5, 5.5), (1.0, 7.0), (2.0, 7.0), (2.0, 30.0))  # (chunk_seconds, window_seconds)
FEEDS = ((16000,), (3100, 777, 12345))  # block sizes, cycled: whole seconds, and ragged
PAUSES = (0.1, 0.6, 2.5)  # the segmenter's pause setting


def session(seed: int) -> np.ndarray:
    """Speech-like bursts (0.2-4.5 s) between quiet stretches (0.05-3.5 s): pauses of every length
    around both roads' settings, and bursts long enough to fill small windows."""
    rng = np.random.default_rng(seed)
    parts = []
    for k in range(14):
        parts += [loud(float(rng.uniform(0.2, 4.5)), seed=seed * 100 + k), quiet(float(rng.uniform(0.05, 3.5)))]
    return np.concatenate(parts)


def window_road(audio: np.ndarray, chunk: float, window: float, sizes: tuple) -> dict:
    """The audio (in samples) of every decoder run, and the committed text."""
    engine = FakeEngine()
    stream = StreamingTranscriber.on_decoder(engine, clock=FakeClock(), chunk_seconds=chunk, window_seconds=window)
    start, k = 0, 0
    while start < len(audio):
        stream.feed(audio[start : start + sizes[k % len(sizes)]])
        start, k = start + sizes[k % len(sizes)], k + 1
    committed = stream.finish().committed
    return dict(decoded=[round(call["seconds"] * 16000) for call in engine.calls], committed=committed)


def segmenter_road(audio: np.ndarray, pause: float) -> list:
    """Every utterance: [start, end, speech_end, reason] (sample indices)."""
    seg = Segmenter(pause=pause, max_seconds=6.0)
    found = [u for i in range(0, len(audio), 480) for u in seg.push(audio[i : i + 480])]
    last = seg.flush()
    return [[u.start, u.end, u.speech_end, u.reason] for u in found + ([last] if last is not None else [])]


def replays() -> dict:
    cases = {}
    for seed in (0, 1):
        audio = session(seed)
        for (chunk, window), sizes in ((w, f) for w in WINDOWS for f in FEEDS):
            cases[f"window/{seed}/{chunk}/{window}/{len(sizes)}"] = window_road(audio, chunk, window, sizes)
        for pause in PAUSES:
            cases[f"segmenter/{seed}/{pause}"] = segmenter_road(audio, pause)
    return cases


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text())


@pytest.fixture(scope="module")
def now() -> dict:
    return replays()


def test_the_window_engine_closes_and_cuts_its_windows_where_it_did(golden, now):
    for name in (n for n in golden if n.startswith("window/")):
        assert now[name] == golden[name], name


def test_the_segmenter_ends_and_cuts_utterances_where_it_did(golden, now):
    for name in (n for n in golden if n.startswith("segmenter/")):
        assert now[name] == golden[name], name


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(replays(), separators=(",", ":")) + "\n")
    sys.exit(0)
