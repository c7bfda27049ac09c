"""A server request's options are checked once, by the request (routes.checked_options): the worker's
batched engine call does not check them again. A live
session's, once at the handshake."""

import json

import numpy as np
import pytest
from server_helpers import post_form, server_in_thread, wav_bytes
from websockets.sync.client import connect

from mlx_qwen3asr.server.app import build_app
from mlx_qwen3asr.server.routes import ServerState
from mlx_qwen3asr.server.transcription import ServedModels
from mlx_qwen3asr.server.worker import ModelWorker
from mlx_qwen3asr.testing.signals import burst, silence

TOKENS = 2
WAVE = burst(0.5, seed=1)  # speech-like: it reaches the model


def test_a_server_request_is_checked_once(option_checks, tiny_model):
    worker = ModelWorker(lambda: ServedModels(tiny_model))
    worker.start()
    state = ServerState(worker, "fake", max_new_tokens=TOKENS)
    with server_in_thread(build_app(state)) as base:
        before = len(option_checks)  # the worker's warm-up is not a request
        code, _, _ = post_form(f"{base}/v1/audio/transcriptions", {"model": "x"}, {"file": ("a.wav", wav_bytes(WAVE))})
    worker.stop()
    assert code == 200 and len(option_checks) - before == 1, f"status {code}; {len(option_checks) - before} checks"


@pytest.mark.parametrize("engine", ["live", "window"])
def test_a_live_session_is_checked_once_at_the_handshake(option_checks, tiny_model, engine):
    worker = ModelWorker(lambda: ServedModels(tiny_model))
    worker.start()
    state = ServerState(worker, "fake", max_new_tokens=TOKENS)
    pcm = np.concatenate([silence(0.5), burst(1.5, seed=2), silence(1.0)])
    with server_in_thread(build_app(state)) as base:
        before = len(option_checks)  # the worker's warm-up is not a session
        url = f"{base.replace('http', 'ws')}/v1/audio/live?engine={engine}&prompt=Names"
        with connect(url, open_timeout=30) as ws:
            ws.send(np.round(pcm * 32767).astype("<i2").tobytes())
            ws.send(json.dumps({"type": "finish"}))
            done = next(event for event in map(json.loads, ws) if event["type"] in ("session.done", "error"))
    worker.stop()
    assert done["type"] == "session.done", done
    assert len(option_checks) - before == 1, f"{len(option_checks) - before} checks: the handshake's, none after"
