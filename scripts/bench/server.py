"""Load benchmark for the server: concurrent clients sending 10-60 s files, batching off vs on, side by
side in one run, with live WebSocket sessions streaming in real time while the files are served.

    python -m scripts.bench.server [--quick] [--model DIR] [--json out.json]   (needs the [test] extra)

    checkpoint (--model, or a random tiny one made in a temp folder)
    -> the same --files audio clips for every lane (tests/fixtures/audio/long.wav, espeak-ng
       speech, tiled from a random start to 10-60 s each, seed 0)
    -> lanes alternated --rounds times: `python -m mlx_qwen3asr.server --batch-size 1` (off), then
       `--batch-size B` (on); each round a fresh server, start-up not timed
       --clients threads share the clips (openai client, response_format=json), while --live
       sessions send 0.1 s PCM16 frames at real-time pace until the files are done
    -> per lane: files/s, audio seconds per wall second, p50/p95 request latency, live lag (wall
       time from sending a frame to the partial that covers it, p50/p95), errors; the load average
    -> a table, and --json

Random weights never stop on their own: --max-new-tokens caps each chunk (default 16). The on lane
decodes up to --batch-size requests in one mq.transcribe_batch call, --batch-size chunks per wave;
live steps run between waves, so their lag is bounded by one wave. `--quick`: tiny model, 8 files of 10-20 s, 4 clients, 1 live session.
On Linux run it after `source scripts/env.sh` (the fast BLAS preloaded).
"""

import argparse
import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import wave
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from openai import OpenAI
from websockets.sync.client import connect

import mlx_qwen3asr as mq
from scripts.bench.clips import fixture
from scripts.bench.common import CACHE_DIR, ROOT, random_checkpoint

RATE = mq.SAMPLE_RATE
FRAME = RATE // 10  # live frames of 0.1 s
LIVE_MIN_SECONDS = 3.0  # live sessions last at least this long: past one 2 s streaming step


def clips(count: int, low: float, high: float) -> list[np.ndarray]:
    """int16 speech clips of random length in [low, high] seconds (the fixture tiled, random start)."""
    speech = (fixture("long") * 32768).astype(np.int16)  # the WAV's own samples
    rng = np.random.default_rng(0)
    out = []
    for _ in range(count):
        n = int(rng.uniform(low, high) * RATE)
        start = int(rng.integers(len(speech)))
        out.append(np.resize(np.roll(speech, -start), n))
    return out


def wav(pcm: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as f:
        f.setnchannels(1), f.setsampwidth(2), f.setframerate(RATE)
        f.writeframes(pcm.tobytes())
    return buffer.getvalue()


def start_server(model: str, batch_size: int, args) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "mlx_qwen3asr.server",
        "--model",
        model,
        "--port",
        str(port),
        "--batch-size",
        str(batch_size),
        "--max-new-tokens",
        str(args.max_new_tokens),
        "--max-queue",
        "1000",
        "--max-upload-mb",
        "100",
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)  # -m: the package of this checkout
    base = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 300
    while time.monotonic() < end:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/health", timeout=1):
                return process, base
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not become healthy in 300 s")


def live_session(base: str, speech: np.ndarray, done: threading.Event, lags: list, errors: list) -> None:
    """Real-time PCM16 frames until `done`; lag = receive time - send time of the last covered frame."""
    sent: list[float] = []
    with connect(base.replace("http", "ws") + "/v1/audio/live", open_timeout=60) as ws:
        ws.recv(timeout=60)  # session.created
        receiver = threading.Thread(target=_collect, args=(ws, sent, lags, errors), daemon=True)
        receiver.start()
        start, i = time.perf_counter(), 0
        while not done.is_set():
            ws.send(np.resize(np.roll(speech, -i * FRAME), FRAME).tobytes())
            sent.append(time.perf_counter())
            i += 1
            time.sleep(max(0.0, start + i * FRAME / RATE - time.perf_counter()))
        ws.send(json.dumps({"type": "finish"}))
        receiver.join(timeout=120)


def _collect(ws, sent: list, lags: list, errors: list) -> None:
    while True:
        event = json.loads(ws.recv(timeout=120))
        if event["type"] == "error":
            errors.append(event["error"]["message"])
        elif event["type"] == "session.done":
            return
        elif event.get("time"):  # a live session's event: "time" = the audio it had analysed (s)
            frames = int(round(event["time"] * RATE / FRAME))
            lags.append(time.perf_counter() - sent[frames - 1])


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def run_lane(model: str, batch_size: int, files: list[np.ndarray], args) -> dict:
    process, base = start_server(model, batch_size, args)
    try:
        client = OpenAI(base_url=f"{base}/v1", api_key="bench", max_retries=0, timeout=3600)
        bodies = [wav(f) for f in files]
        latencies, errors, done = [], [], threading.Event()

        def send(body: bytes) -> None:
            start = time.perf_counter()
            try:
                client.audio.transcriptions.create(file=("clip.wav", body), model="bench")
                latencies.append(time.perf_counter() - start)
            except Exception as e:  # noqa: BLE001 - counted and reported, never hidden
                errors.append(f"{type(e).__name__}: {e}")

        lags, live_errors = [], []
        live = [threading.Thread(target=live_session, args=(base, files[i % len(files)], done, lags, live_errors))
                for i in range(args.live)]  # fmt: skip
        for thread in live:
            thread.start()
        start = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            list(pool.map(send, bodies))
        wall = time.perf_counter() - start
        time.sleep(max(0.0, LIVE_MIN_SECONDS - wall))
        done.set()
        for thread in live:
            thread.join(timeout=300)
    finally:
        process.terminate()
        process.wait(timeout=30)
    audio = sum(len(f) for f in files) / RATE
    return {"batch_size": batch_size, "wall_s": wall, "files_per_s": len(latencies) / wall,
            "audio_s_per_s": audio / wall, "p50_s": percentile(latencies, 50), "p95_s": percentile(latencies, 95),
            "live_lag_p50_s": percentile(lags, 50), "live_lag_p95_s": percentile(lags, 95),
            "live_partials": len(lags), "errors": errors + live_errors}  # fmt: skip


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=None, help="model folder or hub id (default: a random tiny model)")
    p.add_argument("--cache-dir", type=Path, default=CACHE_DIR, help="where the random checkpoint is kept")
    p.add_argument("--files", type=int, default=32)
    p.add_argument("--min-seconds", type=float, default=10.0)
    p.add_argument("--max-seconds", type=float, default=60.0)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=8, help="the batching-on lane (off is 1)")
    p.add_argument("--live", type=int, default=2, help="live sessions during each lane")
    p.add_argument("--rounds", type=int, default=2, help="off/on pairs, alternated")
    p.add_argument("--max-new-tokens", type=int, default=16)
    p.add_argument("--quick", action="store_true", help="tiny model, 8 files of 10-20 s, 4 clients, 1 live session")
    p.add_argument("--json", default=None, help="write the results here")
    args = p.parse_args(argv)
    if args.quick:
        args.files, args.max_seconds, args.clients, args.live, args.rounds = 8, 20.0, 4, 1, 1
    model = args.model or str(random_checkpoint(args.cache_dir, quick=True))
    files = clips(args.files, args.min_seconds, args.max_seconds)
    load_before = os.getloadavg()
    runs = [run_lane(model, size, files, args) for _ in range(args.rounds) for size in (1, args.batch_size)]
    report = {"model": args.model or "random tiny", "files": args.files, "audio_seconds": sum(len(f) for f in files) / RATE,
              "clients": args.clients, "live_sessions": args.live, "max_new_tokens": args.max_new_tokens,
              "load_average_before": load_before, "load_average_after": os.getloadavg(), "runs": runs}  # fmt: skip
    print_table(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 1 if any(run["errors"] for run in runs) else 0


def print_table(report: dict) -> None:
    print(
        f"{report['files']} files, {report['audio_seconds']:.0f} s of audio, {report['clients']} clients, "
        f"{report['live_sessions']} live sessions, model {report['model']}, max_new_tokens {report['max_new_tokens']}"
    )
    print(f"load average before {report['load_average_before'][0]:.2f}, after {report['load_average_after'][0]:.2f}")
    print(
        f"{'batch':>5} {'files/s':>8} {'audio s/s':>10} {'p50 s':>7} {'p95 s':>7} {'live lag p50':>13} "
        f"{'p95':>6} {'partials':>9} {'errors':>7}"
    )
    for r in report["runs"]:
        print(
            f"{r['batch_size']:>5} {r['files_per_s']:>8.2f} {r['audio_s_per_s']:>10.1f} {r['p50_s']:>7.2f} "
            f"{r['p95_s']:>7.2f} {r['live_lag_p50_s']:>13.2f} {r['live_lag_p95_s']:>6.2f} "
            f"{r['live_partials']:>9} {len(r['errors']):>7}"
        )
    for r in report["runs"]:
        for error in r["errors"][:3]:
            print(f"  batch {r['batch_size']} error: {error}")


if __name__ == "__main__":
    sys.exit(main())
