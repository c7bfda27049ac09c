"""A live session replayed at real-time pace on a fake clock: each block arrives when it was captured, and
the session decides by sample counts and that clock only, so a replay gives the same events on any machine
under any load (scripts.bench.vad_live, scripts.bench.partials_noise)."""

import numpy as np

import mlx_qwen3asr as mq

BLOCK = 480  # 30 ms, the app's block


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def real_time(live: mq.LiveSession, clock: FakeClock, audio: np.ndarray, block: int = BLOCK) -> list[mq.Event]:
    """Every event of `live` (made with clock=clock) fed `audio` in blocks, each at its capture time, then finished."""
    events = []
    for i in range(0, len(audio), block):
        clock.now = 100.0 + (i + block) / mq.SAMPLE_RATE
        events += live.feed(audio[i : i + block], captured_at=clock.now)
    return events + live.finish()
