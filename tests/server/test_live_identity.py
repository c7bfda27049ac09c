"""The promised identity (docs/live.md): for the same audio and options, the app (`--events jsonl`), the
library (LiveSession) and the WebSocket commit the same utterances (text, start, end, reason), each
transcribe's text for its audio. On random weights, where near-ties are common, with a 24-token budget
and no language; the socket's frames of several sizes arrive at once, in bursts, and with delays (so
its steps, and which partials exist, differ from the library's and from each other)."""

import json
import subprocess
import sys
import time

import numpy as np
import pytest
from server_helpers import RATE, ROOT, server_process, wav_bytes
from websockets.sync.client import connect

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.signals import noise, silence

AUDIO = ROOT / "tests" / "fixtures" / "audio"
TOKENS = 24


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """(16-bit WAV, its int16 samples): four utterances between pauses over room tone, the third 11 s."""
    clips = [mq.load_audio(AUDIO / f"{name}.wav") for name in ("short", "exact", "long", "short")]
    clips[2] = clips[2][: 11 * RATE]
    audio = np.concatenate([part for clip in clips for part in (silence(1.1), clip)] + [silence(1.5)])
    pcm = np.round(np.clip(audio + noise(len(audio) / RATE, -55.0), -1, 1) * 32767).astype(np.int16)
    path = tmp_path_factory.mktemp("identity") / "four.wav"
    path.write_bytes(wav_bytes(pcm))
    return path, pcm


@pytest.fixture(scope="module")
def server(tiny_checkpoint):
    with server_process(tiny_checkpoint, "--max-new-tokens", str(TOKENS)) as base:
        yield base


def commits(events: list[dict]) -> list[tuple]:
    return [(e["text"], e["start"], e["end"], e["reason"]) for e in events if e["type"] == "commit"]


def socket_commits(server: str, pcm: np.ndarray, frame: int, burst: int, delay: float) -> list[tuple]:
    """Frames of `frame` samples, `burst` at a time with `delay` seconds between bursts."""
    url = f"{server.replace('http', 'ws')}/v1/audio/live?encoding=pcm16&max_new_tokens={TOKENS}"
    with connect(url, open_timeout=30) as ws:
        events = [json.loads(ws.recv(timeout=30))]
        for i, start in enumerate(range(0, len(pcm), frame)):
            ws.send(pcm[start : start + frame].tobytes())
            if delay and i % burst == burst - 1:
                time.sleep(delay)
        ws.send(json.dumps({"type": "finish"}))
        while events[-1]["type"] != "session.done":
            events.append(json.loads(ws.recv(timeout=120)))
    return commits(events)


def library_commits(model, pcm: np.ndarray) -> list[tuple]:
    live = mq.LiveSession(model, mq.DecodeOptions(max_new_tokens=TOKENS))
    events = [e for start in range(0, len(pcm), 4000) for e in live.feed(pcm[start : start + 4000])]
    return commits([e.to_dict() for e in events + live.finish()])


def app_commits(checkpoint, wav) -> list[tuple]:
    command = [sys.executable, "-m", "mlx_qwen3asr_app", "--model", str(checkpoint), "--dtype", "float32",
               "--max-new-tokens", str(TOKENS), "--input", str(wav), "--fast", "--events", "jsonl"]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, f"exit {run.returncode}; stderr:\n{run.stderr}"
    return commits([json.loads(line) for line in run.stdout.splitlines()])


@pytest.fixture(scope="module")
def from_library(tiny_model, recording):
    _, pcm = recording
    expected = library_commits(tiny_model, pcm)
    assert [reason for *_, reason in expected] == ["pause"] * 4, f"four utterances: {expected}"
    for text, start, end, _ in expected:
        utterance = pcm[round(start * RATE) : round(end * RATE)]
        assert text == mq.transcribe(utterance, tiny_model, max_new_tokens=TOKENS).text, f"transcribe's: {start}"
    return expected


def test_the_app_commits_what_the_library_commits(tiny_checkpoint, recording, from_library):
    wav, _ = recording
    assert app_commits(tiny_checkpoint, wav) == from_library


@pytest.mark.parametrize(
    "frame, burst, delay",
    [(8000, 1, 0.0), (1600, 10, 0.4), (480, 50, 0.2), (8000, 1, 0.25)],
    ids=["0.5s-frames-at-once", "0.1s-frames-in-bursts", "30ms-frames-in-bursts", "0.5s-frames-at-twice-real-time"],
)
def test_the_websocket_commits_what_the_library_commits(server, recording, from_library, frame, burst, delay):
    _, pcm = recording
    from_socket = socket_commits(server, pcm, frame, burst, delay)
    assert from_socket == from_library, f"socket:\n{from_socket}\nlibrary:\n{from_library}"
