"""The server's queue, gates and options, in this process on a fake model (the tiny model, with a hook at
each wave's encoder pass that holds, records or fails it): a full queue, a client that leaves, live steps
taking turns with file batches, the API key."""

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from server_helpers import WaveHook, error_of, post_form, request, server_in_thread, wav_bytes
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

import mlx_qwen3asr as mq
from mlx_qwen3asr.server import main
from mlx_qwen3asr.server.app import build_app
from mlx_qwen3asr.server.routes import ServerState
from mlx_qwen3asr.server.transcription import ServedModels, UploadJob
from mlx_qwen3asr.server.worker import ModelWorker
from mlx_qwen3asr.testing.signals import burst

TOKENS = 2  # per chunk: the server's cap, and each job's
WAVE = burst(0.5, seed=1)  # speech-like: it reaches the encoder (silence would be skipped before it)
SPEECH = wav_bytes(WAVE)


class Held:
    """A wave hook that records each wave and holds it until released."""

    def __init__(self, order: list):
        self.order, self.entered, self.release = order, threading.Event(), threading.Event()

    def __call__(self, rows: int) -> None:
        self.order.append(f"files x{rows}")
        self.entered.set()
        assert self.release.wait(20), "the test never released the model"


@pytest.fixture(scope="module")
def text(tiny_model) -> str:
    """What the tiny model says for WAVE: every answer here."""
    return mq.transcribe(WAVE, tiny_model, max_new_tokens=TOKENS).text


@pytest.fixture
def serving(tiny_model):
    def serve(on_wave, **worker_options):
        worker = ModelWorker(lambda: ServedModels(WaveHook(tiny_model, on_wave)), **worker_options)
        worker.start()
        return worker, ServerState(worker, "fake", max_new_tokens=TOKENS)

    return serve


def job(seconds: float = 0.5) -> UploadJob:
    return UploadJob(burst(seconds, seed=1), mq.DecodeOptions(max_new_tokens=TOKENS))


def health(base: str) -> dict:
    return json.loads(request(f"{base}/health")[2])


def wait_for(condition, what: str, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


def post(base: str, timeout: float = 30.0):
    return post_form(f"{base}/v1/audio/transcriptions", {"model": "x"}, {"file": ("a.wav", SPEECH)}, timeout=timeout)


def test_a_full_queue_answers_429_with_retry_after_and_the_waiting_requests_still_finish(serving, text):
    engine = Held([])
    worker, state = serving(engine, batch_size=1, max_queue=2)
    with server_in_thread(build_app(state)) as base, ThreadPoolExecutor(2) as pool:
        first = pool.submit(post, base)
        assert engine.entered.wait(10), "the first request never reached the engine"
        second = pool.submit(post, base)
        wait_for(lambda: health(base)["open_requests"] == 2, "the second request to queue")
        status, headers, body = post(base)
        assert (status, error_of(body)["code"]) == (429, "server_busy"), body
        assert int(headers["Retry-After"]) >= 1, f"Retry-After: {headers['Retry-After']}"
        engine.release.set()
        answers = [json.loads(f.result()[2]) for f in (first, second)]
    worker.stop()
    assert answers == [{"text": text}] * 2


def test_a_client_that_disconnects_while_queued_is_never_decoded(serving):
    order = []
    engine = Held(order)
    worker, state = serving(engine, batch_size=1)
    with server_in_thread(build_app(state)) as base, ThreadPoolExecutor(1) as pool:
        first = pool.submit(post, base)
        assert engine.entered.wait(10), "the first request never reached the engine"
        with pytest.raises(OSError):  # the client gives up (and closes its connection) while queued
            post(base, timeout=0.5)
        wait_for(lambda: health(base)["open_requests"] == 1, "the leaver's job to be cancelled")
        engine.release.set()
        assert first.result()[0] == 200
        wait_for(lambda: health(base)["dropped"] == 1, "the worker to skip the cancelled job")
    worker.stop()
    assert order == ["files x1"], f"only the first request may be decoded: {order}"


def test_live_steps_and_file_batches_take_turns(serving):
    order = []
    engine = Held(order)
    engine.release.set()
    worker, _ = serving(engine, batch_size=2)
    running, gate = threading.Event(), threading.Event()
    held = worker.call(lambda model: running.set() or gate.wait(10))  # holds the worker while all queues
    assert running.wait(10), "the worker never ran the first step"
    files = [worker.submit_files([job()])[0] for _ in range(5)]
    steps = [worker.call(lambda model, i=i: order.append(f"live {i}")) for i in range(3)]
    gate.set()
    for future in [held, *files, *steps]:
        future.result(timeout=10)
    worker.stop()
    # the oldest live step before each batch, and every waiting one after each wave of it: here the
    # batch of two files is one wave, after which the two live steps left run
    assert order == ["live 0", "files x2", "live 1", "live 2", "files x2", "files x1"], order


def test_a_live_step_waits_for_one_wave_of_a_file_batch_not_for_the_whole_batch(serving):
    order, second_wave = [], threading.Event()

    def waves(rows: int) -> None:
        order.append(f"wave {sum(w.startswith('wave') for w in order) + 1}")
        if order == ["wave 1"]:
            assert second_wave.wait(10), "the test never queued its live step"

    worker, _ = serving(waves, batch_size=1)  # one chunk a wave: a 40 s file is two waves
    files = worker.submit_files([job(40.0)])
    wait_for(lambda: order == ["wave 1"], "the batch to start")
    step = worker.call(lambda models: order.append("live"))
    second_wave.set()
    files[0].result(timeout=10), step.result(timeout=10)
    worker.stop()
    assert order == ["wave 1", "live", "wave 2"], order


def test_with_an_api_key_every_endpoint_but_health_needs_the_bearer_token(serving, text):
    engine = Held([])
    engine.release.set()
    worker, state = serving(engine)
    with server_in_thread(build_app(state, api_key="secret")) as base:
        assert request(f"{base}/health")[0] == 200, "health stays open for monitors"
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            status, _, body = request(f"{base}/v1/models", headers=headers)
            assert (status, error_of(body)["code"]) == (401, "invalid_api_key"), headers
        status, _, body = post_form(
            f"{base}/v1/audio/transcriptions",
            {},
            {"file": ("a.wav", SPEECH)},
            headers={"Authorization": "Bearer secret"},
        )
        assert (status, json.loads(body)) == (200, {"text": text})
        with pytest.raises(InvalidStatus):
            connect(base.replace("http", "ws") + "/v1/audio/live", open_timeout=10)
        with connect(
            base.replace("http", "ws") + "/v1/audio/live",
            open_timeout=10,
            additional_headers={"Authorization": "Bearer secret"},
        ) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "session.created"
    worker.stop()


def test_binding_a_network_address_without_an_api_key_is_refused(capsys):
    assert main(["--host", "0.0.0.0", "--model", str(Path("unused"))]) == 2
    assert "--api-key" in capsys.readouterr().err


def test_a_failed_decode_answers_500_in_openai_shape_and_the_next_request_works(serving, text):
    calls = []

    def fails_once(rows: int) -> None:
        calls.append(rows)
        if len(calls) == 1:
            raise RuntimeError("out of memory")

    worker, state = serving(fails_once)
    with server_in_thread(build_app(state)) as base:
        status, _, body = post(base)
        error = error_of(body)
        assert (status, error["code"]) == (500, "server_error") and "out of memory" in error["message"], body
        status, _, body = post(base)
        assert (status, json.loads(body)) == (200, {"text": text})
        assert health(base)["failed"] == 1
    worker.stop()
