"""A careless or hostile client against `python -m mlx_qwen3asr.server` (docs/server.md, "Security"):
every attempt gets one clear 4xx in OpenAI's shape, and the server keeps serving everyone else.

The server runs the tiny random model with no --max-new-tokens: like a user's, it decodes up to its
own budget, and random weights never stop on their own, so a client asking for a million tokens
really would hold the worker for them."""

import json
import signal
import socket
import struct
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import mlx.core as mx
import pytest
from server_helpers import (
    FILE_PART,
    ROOT,
    UPLOAD_HEAD,
    error_of,
    post_form,
    request,
    server_child,
    trickling_upload,
)
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from mlx_qwen3asr.decode.generate import generate_steps
from mlx_qwen3asr.options import token_budget
from mlx_qwen3asr.server.live_options import LiveOptions
from mlx_qwen3asr.server.worker import ModelWorker

SPEECH = (ROOT / "tests" / "fixtures" / "audio" / "short.wav").read_bytes()  # 2.5 s
MAX_AUDIO_SECONDS = 5
GOOD_ORIGIN = "http://good.example"


@pytest.fixture(scope="module")
def server(tiny_checkpoint):
    options = ("--max-audio-seconds", str(MAX_AUDIO_SECONDS), "--client-timeout", "1", "--allow-origin", GOOD_ORIGIN)
    with server_child(tiny_checkpoint, *options, max_new_tokens=None) as (base, _):
        yield base


def transcribe(server: str, data: bytes, name: str = "clip.wav", timeout: float = 60.0, **fields):
    return post_form(
        f"{server}/v1/audio/transcriptions", {"model": "m", **fields}, {"file": (name, data)}, timeout=timeout
    )


def ws_url(server: str, query: str = "") -> str:
    return f"{server.replace('http', 'ws')}/v1/audio/live{query}"


def wav_header(rate: int, n_bytes: int) -> bytes:
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    return (
        b"RIFF"
        + struct.pack("<I", 36 + n_bytes)
        + b"WAVEfmt "
        + struct.pack("<I", 16)
        + fmt
        + b"data"
        + struct.pack("<I", n_bytes)
    )


@pytest.mark.parametrize("kind", ["hls", "concat"])
def test_an_uploaded_playlist_naming_a_server_file_is_refused(server, kind, tmp_path):
    target = tmp_path / "private.mp3"  # a file on the server (hls wants its extension to fit its format)
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(ROOT / "tests/fixtures/audio/long.wav"), str(target)],
                   check=True)  # fmt: skip
    playlist = {"hls": f"#EXTM3U\n#EXT-X-TARGETDURATION:30\n#EXTINF:30,\n{target}\n#EXT-X-ENDLIST\n",
                "concat": f"ffconcat version 1.0\nfile '{target}'\n"}[kind]  # fmt: skip
    status, _, body = transcribe(server, playlist.encode(), name="x.wav")
    error = error_of(body)
    assert (status, error["param"], error["code"]) == (400, "file", "invalid_audio"), (status, error)
    assert "playlist" in error["message"] and str(target) not in error["message"], error


def test_an_undecodable_upload_is_refused_without_ffmpegs_log(server):
    status, _, body = transcribe(server, b"\xff\xfb" + b"not audio at all " * 200, name="x.mp3")
    message = error_of(body)["message"]
    assert status == 400 and "0x" not in message and "ffmpeg" not in message, message
    assert message.startswith("The uploaded file 'x.mp3' is not audio the server can decode"), message


def test_a_one_hertz_header_and_audio_over_the_limit_are_refused_before_decoding(server):
    bomb = wav_header(1, 1000) + bytes(1000)  # 1,044 bytes that say 1,000 s
    started = time.monotonic()
    status, _, body = transcribe(server, bomb)
    assert status == 400 and "says 1 Hz" in error_of(body)["message"], body
    long = wav_header(16000, 2 * 16000 * (MAX_AUDIO_SECONDS + 1)) + bytes(2 * 16000 * (MAX_AUDIO_SECONDS + 1))
    status, _, body = transcribe(server, long)
    assert status == 400 and f"limit of {MAX_AUDIO_SECONDS} s" in error_of(body)["message"], body
    assert time.monotonic() - started < 10, "refusals take no decoding"


def test_a_live_client_asking_for_a_million_tokens_cannot_hold_the_worker(server):
    """It sends speech and finish, then leaves: its step is capped and dropped; a file is answered."""
    with connect(ws_url(server, "?max_new_tokens=1000000"), open_timeout=30) as ws:
        ws.recv(timeout=30)
        ws.send(SPEECH[44:])  # the WAV's int16 samples
        ws.send(json.dumps({"type": "finish"}))
        time.sleep(0.5)  # its step is running now
    started = time.monotonic()
    status, _, body = transcribe(server, SPEECH, timeout=15)
    assert status == 200 and json.loads(body)["text"], body
    assert time.monotonic() - started < 15, "the file waited for the departed client's step"


def test_a_clients_max_new_tokens_can_only_lower_the_servers_budget():
    asked = {"max_new_tokens": 10**6}
    assert LiveOptions(None, "", "pcm16", **asked).decode_options(None, 30.0).max_new_tokens == token_budget(30.0), (
        "capped"
    )
    assert LiveOptions(None, "", "pcm16", **asked).decode_options(8, 30.0).max_new_tokens == 8, "--max-new-tokens caps"
    assert LiveOptions(None, "", "pcm16", max_new_tokens=5).decode_options(8, 30.0).max_new_tokens == 5, "lower: kept"
    assert LiveOptions(None, "", "pcm16").decode_options(None, 30.0).max_new_tokens is None, "default: by duration"


def test_a_running_live_step_stops_when_its_client_leaves(tiny_model):
    """The asyncio side cancels the step's future when its WebSocket closes; the worker is free at once."""
    worker = ModelWorker(lambda: None)
    worker.start()
    running = threading.Event()

    def endless(models):  # a million tokens, no stop rule: as a client asking for them would hold it
        running.set()
        embeddings = tiny_model.embed(mx.array([1, 2, 3]))  # made on the worker thread, as the server's
        return list(generate_steps(tiny_model, embeddings, tiny_model.make_cache(), 10**6))

    try:
        step = worker.call(endless)
        assert running.wait(30), "the step did not start"
        time.sleep(0.2)
        step.cancel()
        assert worker.call(lambda models: "next").result(timeout=10) == "next", "the worker stayed busy"
        assert worker.counts["dropped_live_steps"] == 1, worker.counts
    finally:
        worker.stop()


def test_a_page_from_another_origin_cannot_open_a_live_session(server):
    port = server.rsplit(":", 1)[1]
    with pytest.raises(InvalidStatus) as refused:
        connect(ws_url(server), origin="http://evil.example", open_timeout=30)
    response = refused.value.response
    assert response.status_code == 403 and error_of(response.body)["code"] == "origin_not_allowed", response
    for origin in (f"http://127.0.0.1:{port}", GOOD_ORIGIN):  # its own page, and --allow-origin
        with connect(ws_url(server), origin=origin, open_timeout=30) as ws:
            assert json.loads(ws.recv(timeout=30))["type"] == "session.created", origin


def test_a_prompt_too_long_for_a_url_is_refused_at_once_and_taken_in_the_first_message(server):
    long_prompt = "Qwen MLX Zürich " * 1000  # 17 KB: ~50 KB as a query
    started = time.monotonic()
    with pytest.raises(InvalidStatus) as refused:
        connect(ws_url(server, "?prompt=" + long_prompt.replace(" ", "%20")[:12000]), open_timeout=30)
    assert refused.value.response.status_code == 414 and time.monotonic() - started < 10, "no silent 414"
    assert "session.update" in error_of(refused.value.response.body)["message"]
    with connect(ws_url(server, "?max_new_tokens=4"), open_timeout=30) as ws:
        ws.recv(timeout=30)
        ws.send(json.dumps({"type": "session.update", "prompt": long_prompt}))
        assert json.loads(ws.recv(timeout=60)) == {"type": "session.updated", "prompt_characters": len(long_prompt)}
        ws.send(SPEECH[44:])
        ws.send(json.dumps({"type": "finish"}))
        while (event := json.loads(ws.recv(timeout=120)))["type"] != "session.done":
            assert event["type"] != "error", event


def test_a_prompt_over_the_token_limit_in_the_first_message_ends_the_session(server):
    with connect(ws_url(server), open_timeout=30) as ws:
        ws.recv(timeout=30)
        ws.send(json.dumps({"type": "session.update", "prompt": "word " * 12000}))
        event = json.loads(ws.recv(timeout=60))
        assert event["type"] == "error" and event["error"]["param"] == "prompt", event
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=30)
    assert closed.value.rcvd.code == 1008


def test_slow_request_heads_and_stalled_uploads_are_dropped(server):
    host, port = "127.0.0.1", int(server.rsplit(":", 1)[1])
    with socket.create_connection((host, port), timeout=10) as head_only:
        head_only.sendall(b"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\n")  # never ends
        assert head_only.recv(1000) == b"", "the connection was not closed"
    with socket.create_connection((host, port), timeout=10) as stalled:
        stalled.sendall(UPLOAD_HEAD + FILE_PART)
        answer = b""
        while b"}}" not in answer and (part := stalled.recv(10000)):
            answer += part
        answer = answer.decode()
    assert answer.startswith("HTTP/1.1 408") and "upload_timeout" in answer, answer


def test_eight_clients_with_megabyte_prompts_do_not_stall_the_event_loop(server):
    with ThreadPoolExecutor(8) as pool:
        posts = [pool.submit(transcribe, server, SPEECH, prompt="word " * 200_000, timeout=120) for _ in range(8)]
        time.sleep(1.0)  # their prompts are being tokenized now
        slowest = 0.0
        while not all(p.done() for p in posts):
            started = time.monotonic()
            assert request(f"{server}/health", timeout=30)[0] == 200
            slowest = max(slowest, time.monotonic() - started)
    assert all(p.result()[0] == 400 for p in posts), "200,000-token prompts are refused"
    assert slowest < 3.0, f"/health waited {slowest:.1f} s behind the tokenizer (main: 15 s and more)"


def test_a_client_leaving_mid_upload_logs_nothing_and_sigterm_ends_a_trickled_upload(tiny_checkpoint):
    with server_child(tiny_checkpoint, "--max-new-tokens", "4") as (base, process):
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as leaving:
            leaving.sendall(UPLOAD_HEAD + b"x" * 1000)
        time.sleep(1.0)
        assert transcribe(base, SPEECH)[0] == 200, "the server still serves"
        with trickling_upload(port):
            time.sleep(1.0)
            started = time.monotonic()
            process.send_signal(signal.SIGTERM)
            while process.poll() is None and time.monotonic() - started < 30:
                time.sleep(0.1)
        assert time.monotonic() - started < 20 and process.poll() is not None, "the shutdown grace is unbounded"
        log = process.stderr.read()
        assert "Traceback" not in log, log
