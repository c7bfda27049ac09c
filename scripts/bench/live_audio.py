"""The spoken session scripts.bench.live replays: espeak-ng sentences with known pauses, and where each
sentence starts and where its pause starts (the moments latencies are measured from)."""

import shutil
import subprocess
from pathlib import Path

import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr_app.transcript import write_float_wav

RATE = mq.SAMPLE_RATE
SENTENCES = [
    "Please add milk, eggs and bread to the shopping list.",
    "The meeting moved to Thursday at three in the afternoon.",
    "Send the report to the whole team before lunch.",
    "It will rain tomorrow, so bring an umbrella.",
    "Our new office is on the fourth floor, next to the lifts.",
    "Remind me to call the dentist on Monday morning.",
    "The train was twenty minutes late again today.",
    "Thank you, that is all for now.",
]
PAUSES = [1.0, 1.4, 1.2, 1.6]  # seconds of silence after each sentence, in turn
AUDIBLE = 10 ** (-50 / 20)  # a sentence ends at its last sample above -50 dBFS


def speech(text: str, folder: Path) -> np.ndarray:
    if shutil.which("espeak-ng") is None:
        raise SystemExit("scripts.bench.live needs espeak-ng to make speech (apt install espeak-ng)")
    raw = folder / "raw.wav"
    subprocess.run(["espeak-ng", "-w", raw, text], check=True)
    return mq.load_audio(raw)  # 22.05 kHz -> 16 kHz


def make_session_audio(count: int, folder: Path) -> tuple[Path, list[float], list[float]]:
    """A WAV of `count` sentences with pauses; returns it, each sentence's and each pause's start (s)."""
    parts, speech_starts, pause_starts, at = [np.zeros(RATE // 2, np.float32)], [], [], RATE // 2
    for i in range(count):
        s = speech(SENTENCES[i % len(SENTENCES)], folder)
        audible = np.flatnonzero(np.abs(s) > AUDIBLE)
        speech_starts.append((at + int(audible[0])) / RATE)
        pause_starts.append((at + int(audible[-1]) + 1) / RATE)
        gap = np.zeros(int(PAUSES[i % len(PAUSES)] * RATE), np.float32)
        parts += [s, gap]
        at += len(s) + len(gap)
    path = folder / "session.wav"
    write_float_wav(path, np.concatenate(parts))
    return path, speech_starts, pause_starts
