"""Helpers for the server tests: the server as a child process, or in this process on a fake engine."""

import io
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
import wave
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
RATE = 16000
MAX_NEW_TOKENS = 8  # random weights never stop on their own


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wav_bytes(samples: np.ndarray) -> bytes:
    """16-bit PCM WAV of float samples in [-1, 1] (or int16)."""
    pcm = samples if samples.dtype == np.int16 else np.round(np.clip(samples, -1, 1) * 32767).astype(np.int16)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as f:
        f.setnchannels(1), f.setsampwidth(2), f.setframerate(RATE)
        f.writeframes(pcm.tobytes())
    return buffer.getvalue()


def float_wav_bytes(samples: np.ndarray) -> bytes:
    """32-bit IEEE float WAV (format tag 3): the wave module writes PCM only."""
    data = np.asarray(samples, "<f4").tobytes()
    fmt = struct.pack("<HHIIHH", 3, 1, RATE, RATE * 4, 4, 32)
    return (
        b"RIFF"
        + struct.pack("<I", 4 + 8 + len(fmt) + 8 + len(data))
        + b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + struct.pack("<I", len(data))
        + data
    )


def request(url: str, data: bytes = None, headers: dict = None, timeout: float = 30.0):
    """(status, headers, body bytes) of a GET (or a POST when data is given); errors are answers too."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers or {}), timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def post_form(url: str, fields: dict, files: dict, headers: dict = None, timeout: float = 30.0):
    """A multipart/form-data POST: fields {name: text}, files {name: (filename, bytes)}."""
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()
    ]
    parts += [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"; filename="{name}"\r\n'
        f"Content-Type: application/octet-stream\r\n\r\n".encode()
        + data
        + b"\r\n"
        for k, (name, data) in files.items()
    ]
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", **(headers or {})}
    return request(url, body, headers, timeout)


def error_of(body: bytes) -> dict:
    """The "error" object of an OpenAI-shaped error body."""
    document = json.loads(body)
    assert set(document["error"]) == {"message", "type", "param", "code"}, f"not OpenAI's shape: {document}"
    return document["error"]


def wait_until_healthy(base: str, process=None, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"server exited ({process.returncode}): {process.stderr.read()}")
        try:
            if request(f"{base}/health", timeout=1)[0] == 200:
                return
        except OSError:  # not listening yet
            pass
        time.sleep(0.1)
    raise AssertionError(f"server at {base} not healthy within {timeout} s")


@contextmanager
def server_process(model: Path, *args: str, port: int = None):
    """`python -m mlx_qwen3asr.server` on `port` (default a free one); yields its base URL (http://127.0.0.1:PORT)."""
    with server_child(model, *args, port=port) as (base, _):
        yield base


@contextmanager
def server_child(model: Path, *args: str, port: int = None, max_new_tokens: int = MAX_NEW_TOKENS):
    """server_process, yielding (base URL, the Popen: its stderr is a pipe); max_new_tokens=None
    leaves --max-new-tokens out (the server's own budget, as a user runs it)."""
    port = port or free_port()
    cap = [] if max_new_tokens is None else ["--max-new-tokens", str(max_new_tokens)]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [
        sys.executable,
        "-m",
        "mlx_qwen3asr.server",
        "--model",
        str(model),
        "--port",
        str(port),
        "--dtype",
        "float32",
        *cap,
        "--log-level",
        "warning",
        *args,
    ]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(base, process)
        yield base, process
    finally:
        process.terminate()
        process.wait(timeout=20)


@contextmanager
def server_in_thread(app):
    """uvicorn serving `app` on a thread of this process; yields the base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(base)
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=10)


# A multipart upload's head that announces 100,000 bytes of body; FILE_PART then opens its file part.
UPLOAD_HEAD = (
    b"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
    b"boundary=b\r\nContent-Length: 100000\r\n\r\n--b\r\n"
)
FILE_PART = b'Content-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n'


@contextmanager
def trickling_upload(port: int, every: float = 0.5):
    """An upload to the server on `port` that sends one byte of its file every `every` seconds while
    the block runs: a slow client the server must not wait for forever."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(UPLOAD_HEAD + FILE_PART)
    stop = threading.Event()

    def send() -> None:
        while not stop.wait(every):
            try:
                sock.send(b"x")
            except OSError:  # the server closed it
                return

    threading.Thread(target=send, daemon=True).start()
    try:
        yield
    finally:
        stop.set()
        sock.close()


class WaveHook:
    """A recogniser that is the tiny model but calls on_wave(rows) at each wave's encoder pass."""

    def __init__(self, model, on_wave):
        self.tiny, self.on_wave = model, on_wave  # not `model`: a recogniser's .model is its decoder

    def __getattr__(self, name):
        return getattr(self.tiny, name)

    def __call__(self, *args, **kwargs):
        return self.tiny(*args, **kwargs)

    def encode_many(self, features):
        self.on_wave(len(features))
        return self.tiny.encode_many(features)
