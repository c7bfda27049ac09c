"""A long streaming session keeps its memory: what MLX holds (arrays in use + freed buffers kept for
reuse) after its twentieth window is no more than after its first few. Each window's arrays have
sizes of their own; freed buffers kept across windows were seldom reused and piled up to the
allocator's cap (docs/streaming.md, "Numbers": +1.6 GB of RSS in 12 minutes on the tiny model)."""

from pathlib import Path

import mlx.core as mx
import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.streaming import StreamingTranscriber, StreamingTuning
from mlx_qwen3asr.testing.signals import noise, silence

AUDIO = Path(__file__).resolve().parents[1] / "fixtures" / "audio"
RATE = 16000


def held_mb() -> float:
    return (mx.get_active_memory() + mx.get_cache_memory()) / 2**20


def test_memory_after_many_windows_is_no_more_than_after_the_first(tiny_model):
    long = mq.load_audio(AUDIO / "long.wav")
    rng = np.random.default_rng(0)
    stream = StreamingTranscriber(
        tiny_model, mq.DecodeOptions(max_new_tokens=12), tuning=StreamingTuning(stop_loops=False)
    )
    held = []
    for window in range(20):  # speech of 3-15 s, then a 2.5 s pause: the window closes
        speech = long[: int(rng.uniform(3, 15) * RATE)]
        audio = np.concatenate([speech, silence(2.5)])
        stream.feed(audio + noise(len(audio) / RATE, -60.0, seed=window))
        held.append(held_mb())
    first, later = max(held[:5]), max(held[10:])
    assert later <= first * 1.1 + 8, f"MLX held {first:.0f} MB after the first windows, {later:.0f} MB later: {held}"
