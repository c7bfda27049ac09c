"""`python -m mlx_qwen3asr.server --model M [--partials-model P] [--aligner A] [--diarize [D]] [--host 127.0.0.1]
[--port 8000]`: load, warm up, serve.

argv -> options (refuses a non-local --host without --api-key)
-> ModelWorker thread: mq.load + warm-up (decode/warm_up.py: a short and a 30 s clip together) and a live session
   (with --partials-model, mq.load of the first pass, loaded once, warmed in that session); with --aligner, mq.load of
   the forced aligner + one short alignment; with --diarize, mq.load of the diarizer + one short diarization -> ready
-> uvicorn serves build_app(...) until Ctrl-C / SIGTERM (open requests get SHUTDOWN_GRACE_SECONDS) -> the worker stops
"""

import argparse
import logging
import os
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np

from mlx_qwen3asr.audio import SAMPLE_RATE
from mlx_qwen3asr.decode.prefix_cache import DEFAULT_MAX_BYTES
from mlx_qwen3asr.decode.warm_up import warm_up
from mlx_qwen3asr.families.aligner.aligner import align
from mlx_qwen3asr.families.pyannote.config import DEFAULT_DIARIZER
from mlx_qwen3asr.families.registry import require_task
from mlx_qwen3asr.loading.load import DEFAULT_MODEL, DTYPES, load
from mlx_qwen3asr.options import DecodeOptions
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from mlx_qwen3asr.runtime.lifecycle import releases_mlx_streams
from mlx_qwen3asr.streaming import LiveSession
from mlx_qwen3asr.vad import VAD_CHOICES, vad_by_name

from .limits import CLIENT_TIMEOUT_SECONDS, DEFAULT_MAX_AUDIO_SECONDS, SHUTDOWN_GRACE_SECONDS
from .transcription import ServedModels

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
WARMUP_TOKENS = 4


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mlx-qwen3asr serve", description="Serve OpenAI's audio transcription API and live WebSocket sessions."
    )
    add = parser.add_argument
    add("--model", default=DEFAULT_MODEL, help=f"hub id or local folder (default {DEFAULT_MODEL})")
    add(
        "--aligner",
        default=None,
        help="a forced aligner (hub id or folder, e.g. Qwen/Qwen3-ForcedAligner-0.6B): word timestamps in verbose_json",
    )
    add(
        "--diarize",
        nargs="?",
        const=DEFAULT_DIARIZER,
        default=None,
        metavar="MODEL",
        help=f"label speakers with pyannote's diarizer (folder or hub id; default {DEFAULT_DIARIZER}): "
        "response_format=diarized_json, and speakers in verbose_json, srt and vtt",
    )
    add(
        "--partials-model",
        default=None,
        metavar="MODEL",
        help="live sessions' tentative text from this fast model (e.g. a SenseVoiceSmall folder), commits from "
        "--model (memory: both)",
    )
    add("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; any other needs --api-key)")
    add("--port", type=int, default=8000)
    add(
        "--api-key",
        default=os.environ.get("MLX_QWEN3ASR_API_KEY"),
        help="require 'Authorization: Bearer KEY' (default: $MLX_QWEN3ASR_API_KEY)",
    )
    add("--dtype", default=None, choices=sorted(DTYPES), help="default: float16 on GPU, float32 on CPU")
    add("--batch-size", type=int, default=4, help="file requests decoded together (1 = no batching)")
    _limits(add)
    add(
        "--prefix-cache-mb",
        type=float,
        default=DEFAULT_MAX_BYTES / 2**20,
        help="memory for prompt heads kept by context, least recently used dropped (default 1024; 0: none kept)",
    )
    add(
        "--vad",
        default="silero",
        choices=VAD_CHOICES,
        help="what ends a live utterance: silero (Silero VAD: noise and clicks never open one; default) or energy",
    )
    add(
        "--vad-files",
        action="store_true",
        help="file requests too: decode only the stretches --vad silero hears speech in (noise and music skipped)",
    )
    add("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    return parser


def _limits(add) -> None:
    """What one client may cost the server (limits.py; docs/server.md, "Security")."""
    add("--max-queue", type=int, default=64, help="requests waiting or decoding before new ones get 429")
    add("--max-live-sessions", type=int, default=8, help="WebSocket sessions at once")
    add("--max-upload-mb", type=float, default=25.0, help="larger uploads get 413 (default 25, as OpenAI)")
    add("--max-new-tokens", type=int, default=None, help="token cap per decoded chunk (default: by duration)")
    add(
        "--max-audio-seconds",
        type=float,
        default=DEFAULT_MAX_AUDIO_SECONDS,
        help=f"longer uploads get 400, noticed before resampling (default {DEFAULT_MAX_AUDIO_SECONDS:g}: ~0.46 GB of samples)",
    )
    add(
        "--client-timeout",
        type=float,
        default=CLIENT_TIMEOUT_SECONDS,
        help=f"seconds a request head or an upload may send nothing before it is dropped (default {CLIENT_TIMEOUT_SECONDS:g})",
    )
    add(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web page origin (https://app.example) that may open live WebSockets besides the server's own; '*': any",
    )


def check_options(args: argparse.Namespace) -> Optional[str]:
    """The reason these options are refused, or None."""
    if args.host not in LOCAL_HOSTS and not args.api_key:
        return f"binding {args.host} exposes the server to the network: set --api-key (or $MLX_QWEN3ASR_API_KEY)"
    if args.batch_size < 1 or args.max_queue < 1 or args.max_live_sessions < 0 or args.max_upload_mb <= 0:
        return "--batch-size and --max-queue must be at least 1, --max-upload-mb above 0"
    if args.max_new_tokens is not None and args.max_new_tokens < 1:
        return "--max-new-tokens must be at least 1"
    if args.prefix_cache_mb < 0:
        return "--prefix-cache-mb must be 0 or more"
    if not args.max_audio_seconds > 0 or not args.client_timeout > 0:
        return "--max-audio-seconds and --client-timeout must be above 0"
    return None


def load_and_warm(
    model_path: str,
    dtype: Optional[str],
    aligner_path: Optional[str] = None,
    prefix_bytes: int = DEFAULT_MAX_BYTES,
    vad: str = "energy",
    vad_files: bool = False,
    diarizer_path: Optional[str] = None,
    partials_path: Optional[str] = None,
) -> ServedModels:
    """Runs on the worker thread: the first request then pays no compile or allocation cost (and
    finds the prompt head without a context already computed)."""
    model = load(model_path, dtype=dtype)
    require_task(model, "transcribe", f"--model {model_path}")
    served = ServedModels(model, prefix_bytes=prefix_bytes, vad=vad_by_name(vad), vad_files=vad_files)
    if partials_path is not None:
        served.partials = load(partials_path, dtype=dtype)
        require_task(served.partials, "transcribe", f"--partials-model {partials_path}")
    noise = np.random.default_rng(0).normal(0.0, 0.1, SAMPLE_RATE).astype(np.float32)
    # the shapes file batches use: a short and a 30 s clip, two rows (decode/warm_up.py)
    warm_up(model, served.prefixes)
    live = LiveSession(
        model, DecodeOptions(max_new_tokens=WARMUP_TOKENS), partials_model=served.partials,
        prefix_cache=served.prefixes, vad=served.vad,
    )  # fmt: skip
    live.warm_up()  # the live path too (the partials model's as well)
    if aligner_path is not None:
        served.aligner = load(aligner_path, dtype=dtype)
        require_task(served.aligner, "align", f"--aligner {aligner_path}")
        align(noise, "warm up", served.aligner, "English")
    if diarizer_path is not None:
        served.diarizer = load(diarizer_path)
        require_task(served.diarizer, "diarize", f"--diarize {diarizer_path}")
        served.diarizer.diarize(noise)
    return served


@releases_mlx_streams
def main(argv=None) -> int:
    if argv is None:  # the real command line: the BLAS the app and the CLI run on, so the same bits
        ensure_fast_blas()
    args = build_parser().parse_args(argv)
    problem = check_options(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        import uvicorn

        from .app import build_app
        from .protocols import WebSocketProtocol, timed_http_protocol
        from .routes import ServerState
        from .worker import ModelWorker
    except ImportError as e:
        print(
            f"error: the server needs its extra dependencies ({e.name}): pip install 'mlx-qwen3asr[server]'",
            file=sys.stderr,
        )
        return 1
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s: %(message)s")
    started = time.perf_counter()
    worker = ModelWorker(
        lambda: load_and_warm(
            args.model,
            args.dtype,
            args.aligner,
            int(args.prefix_cache_mb * 2**20),
            args.vad,
            args.vad_files,
            args.diarize,
            args.partials_model,
        ),  # fmt: skip
        batch_size=args.batch_size,
        max_queue=args.max_queue,
    )
    try:
        worker.start()
    except (FileNotFoundError, ValueError, OSError) as e:
        print(f"error: cannot load model: {e}", file=sys.stderr)
        return 1
    loaded = ", ".join(f"{what} {name}" for what, name in [("model", args.model), ("partials model", args.partials_model),
                                                            ("aligner", args.aligner), ("diarizer", args.diarize)] if name)  # fmt: skip
    print(f"{loaded} loaded and warm in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    state = served_state(args, worker, ServerState)
    app = build_app(state, args.api_key, int(args.max_upload_mb * 1e6), args.client_timeout)
    try:
        http = timed_http_protocol(args.client_timeout)
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, http=http, ws=WebSocketProtocol,
                    timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS)  # fmt: skip
    finally:
        worker.stop()
    return 0


def served_state(args: argparse.Namespace, worker, state_class):
    """What the routes know of this server: its model's name, what it was started with, its limits."""
    model_id = Path(args.model).name if Path(args.model).exists() else args.model
    return state_class(
        worker,
        model_id,
        has_aligner=args.aligner is not None,
        has_diarizer=args.diarize is not None,
        started=time.time(),
        max_new_tokens=args.max_new_tokens,
        max_audio_seconds=args.max_audio_seconds,
        allowed_origins=tuple(origin.rstrip("/") for origin in args.allow_origin),
        max_live_sessions=args.max_live_sessions,
    )
