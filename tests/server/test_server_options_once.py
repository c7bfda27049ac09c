"""A server request's options are checked once, by the request (routes.checked_options): the worker's
batched engine call does not check them again."""

from server_helpers import post_form, server_in_thread, wav_bytes

from mlx_qwen3asr.server.app import build_app
from mlx_qwen3asr.server.routes import ServerState
from mlx_qwen3asr.server.transcription import ServedModels
from mlx_qwen3asr.server.worker import ModelWorker
from mlx_qwen3asr.testing.signals import burst

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
