"""A careless or hostile client against the server, item by item: what each attempt got (status), what it
cost the server (peak RSS growth) and how long it took. Run it on two checkouts to compare them:

    python -m scripts.bench.hostile --model DIR [--root CHECKOUT]

--model: a checkpoint folder (`python scripts/make_random_checkpoint.py DIR`: the tiny random model);
--root: the checkout whose server is started (default this one), with this Python. The server runs
with its defaults (no --max-new-tokens: random weights never stop, as a hostile client would want).
Linux only (peak RSS from /proc). Prints one line per item.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from websockets.sync.client import connect

from scripts.bench.common import ROOT
from tests.server.server_helpers import (
    UPLOAD_HEAD,
    free_port,
    post_form,
    request,
    trickling_upload,
    wait_until_healthy,
)

SPEECH = (ROOT / "tests" / "fixtures" / "audio" / "short.wav").read_bytes()
SECRET = Path("/tmp/hostile-private.mp3")  # a file on the server that a playlist names


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def upload(base: str, data: bytes, name: str = "x.wav", timeout: float = 60.0, **fields):
    try:
        return post_form(f"{base}/v1/audio/transcriptions", {"model": "m", **fields}, {"file": (name, data)},
                         timeout=timeout)  # fmt: skip
    except OSError as e:  # a timeout: no answer
        return f"no answer ({type(e).__name__})", {}, b""


def measured(process, item: str, work) -> None:
    before, started = peak_rss_mb(process.pid), time.perf_counter()
    outcome = work()
    seconds, after = time.perf_counter() - started, peak_rss_mb(process.pid)
    print(f"{item:<28} {outcome:<70} peak RSS +{after - before:7.0f} MB  {seconds:6.1f} s", flush=True)


def wav_1hz() -> bytes:
    import struct

    fmt = struct.pack("<HHIIHH", 1, 1, 1, 2, 2, 16)
    return (
        b"RIFF"
        + struct.pack("<I", 1036)
        + b"WAVEfmt "
        + struct.pack("<I", 16)
        + fmt
        + b"data"
        + struct.pack("<I", 1000)
        + bytes(1000)
    )


def status_and_message(answer) -> str:
    status, _, body = answer
    try:
        message = json.loads(body)["error"]["message"] if status != 200 else json.loads(body)["text"][:30]
    except (ValueError, KeyError):
        message = body[:40]
    return f"{status} {message!r}"[:70]


def ffmpeg_text(answer) -> str:
    message = json.loads(answer[2])["error"]["message"]
    return f"{answer[0]}, heap address in the message: {'0x' in message}, ffmpeg named: {'ffmpeg' in message}"


def live_hog_then_file(base: str) -> str:
    with connect(base.replace("http", "ws") + "/v1/audio/live?max_new_tokens=1000000", open_timeout=30) as ws:
        ws.recv(timeout=30)
        ws.send(SPEECH[44:])
        ws.send(json.dumps({"type": "finish"}))
        time.sleep(0.5)
    started = time.perf_counter()
    status = upload(base, SPEECH, timeout=15)[0]
    return f"other client's file: {status} after {time.perf_counter() - started:.1f} s"


def long_query(base: str) -> str:
    prompt = "%20".join(["Qwen3-ASR"] * 1000)  # ~9,000 tokens, 12 KB in the URL
    started = time.perf_counter()
    try:
        with connect(base.replace("http", "ws") + "/v1/audio/live?prompt=" + prompt, open_timeout=15) as ws:
            return f"accepted: {ws.recv(timeout=15)[:40]}"
    except Exception as e:  # noqa: BLE001 - what the client saw is the measurement
        return f"{type(e).__name__}: {str(e)[:40]} after {time.perf_counter() - started:.1f} s"


def health_under_prompts(base: str) -> str:
    with ThreadPoolExecutor(8) as pool:
        posts = [pool.submit(upload, base, SPEECH, prompt="word " * 200_000, timeout=120) for _ in range(8)]
        time.sleep(0.5)
        slowest = 0.0
        while not all(p.done() for p in posts):
            started = time.perf_counter()
            request(f"{base}/health", timeout=60)
            slowest = max(slowest, time.perf_counter() - started)
    return f"statuses {sorted({p.result()[0] for p in posts})}, slowest /health {slowest:.2f} s"


def evil_origin(base: str) -> str:
    try:
        with connect(
            base.replace("http", "ws") + "/v1/audio/live", origin="http://evil.example", open_timeout=15
        ) as ws:
            return f"accepted: {json.loads(ws.recv(timeout=15))['type']}"
    except Exception as e:  # noqa: BLE001
        return f"refused: {str(e)[:50]}"


def leave_mid_upload(port: int) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(UPLOAD_HEAD + b"x" * 1000)
    time.sleep(1.0)
    return "left"


def sigterm_with_trickle(process, port: int) -> str:
    with trickling_upload(port):
        time.sleep(1.0)
        process.send_signal(signal.SIGTERM)
        started = time.perf_counter()
        try:
            process.wait(timeout=40)
            return f"exited after {time.perf_counter() - started:.1f} s"
        except subprocess.TimeoutExpired:
            process.kill()
            return "still up 40 s after SIGTERM"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--root", default=str(ROOT))
    args = parser.parse_args()
    port, log = free_port(), Path(f"/tmp/hostile-{os.getpid()}.log")
    speech = str(ROOT / "tests" / "fixtures" / "audio" / "long.wav")
    subprocess.run(["ffmpeg", "-nostdin", "-y", "-v", "error", "-i", speech, str(SECRET)], check=True)
    env = dict(os.environ, PYTHONPATH=args.root)
    command = [sys.executable, "-m", "mlx_qwen3asr.server", "--model", args.model, "--port", str(port),
               "--dtype", "float32", "--log-level", "warning"]  # fmt: skip
    with open(log, "w") as stderr:
        process = subprocess.Popen(command, cwd=args.root, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    base = f"http://127.0.0.1:{port}"
    wait_until_healthy(base, None, timeout=120)
    print(f"server {args.root}: load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    playlist = f"#EXTM3U\n#EXT-X-TARGETDURATION:30\n#EXTINF:30,\n{SECRET}\n#EXT-X-ENDLIST\n".encode()
    measured(process, "1 playlist named x.wav", lambda: status_and_message(upload(base, playlist)))
    measured(process, "2 1 Hz WAV of 1,044 bytes", lambda: status_and_message(upload(base, wav_1hz())))
    measured(process, "3 live hog, then a file", lambda: live_hog_then_file(base))
    ten_k = "word " * 9800  # 9,800 tokens
    measured(
        process, "6 prompt at the limit", lambda: status_and_message(upload(base, SPEECH, prompt=ten_k, timeout=300))
    )
    measured(process, "6 ~1,000-token query", lambda: long_query(base))
    measured(process, "7 8 x 1 MB prompts", lambda: health_under_prompts(base))
    measured(process, "7 ffmpeg error text", lambda: ffmpeg_text(upload(base, b"junk" * 300, name="x.mp3")))
    measured(process, "7 Origin evil.example", lambda: evil_origin(base))
    measured(process, "7 client leaves mid-upload", lambda: leave_mid_upload(port))
    print(f"{'7 SIGTERM, trickled upload':<28} {sigterm_with_trickle(process, port)}", flush=True)
    tracebacks = log.read_text().count("Traceback")
    print(f"{'7 tracebacks in the log':<28} {tracebacks}", flush=True)


if __name__ == "__main__":
    main()
