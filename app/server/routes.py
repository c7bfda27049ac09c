"""HTTP endpoints: POST /v1/audio/transcriptions, GET /v1/models, GET /health.

    multipart -> read_request (fields) -> decode_audio (thread pool) -> worker.submit_files
      -> await the job futures (cancelled when the client leaves) -> render / SSE events
"""

import time
from dataclasses import dataclass
from typing import Optional

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

import mlx_qwen3asr as mq

from .disconnect import ClientGone, DisconnectWatch, cancel_all
from .errors import APIError, server_failure
from .responses import render, sse, text_delta, text_done
from .transcription import FileJob, joined, stream_pieces
from .uploads import decode_audio, read_request
from .worker import Busy, ModelWorker


@dataclass
class ServerState:
    worker: ModelWorker
    model_id: str  # what /v1/models lists
    has_aligner: bool = False
    started: float = 0.0  # time.time() when the model was ready
    max_new_tokens: Optional[int] = None  # cap per decoded chunk, files and live (random test models)
    max_live_sessions: int = 8
    live_sessions: int = 0  # open WebSocket sessions (changed on the event loop only)


async def transcriptions(request: Request) -> Response:
    state: ServerState = request.app.state.server
    fields = await read_request(request, state.has_aligner)
    wave = await run_in_threadpool(decode_audio, fields.audio, fields.filename)
    duration = len(wave) / mq.SAMPLE_RATE
    options = mq.DecodeOptions(fields.language, fields.prompt, state.max_new_tokens)
    if fields.stream:
        pieces = stream_pieces(wave)
        futures = _submit(state.worker, [FileJob(piece, options) for _, piece in pieces])
        offsets = [offset for offset, _ in pieces]
        return StreamingResponse(_events(request, futures, offsets, duration), media_type="text/event-stream")
    futures = _submit(state.worker, [FileJob(wave, options)])
    watch = DisconnectWatch(request)
    try:
        result = await watch.result(futures[0])
    except ClientGone:
        return Response(status_code=499)  # never delivered: nobody is listening
    finally:
        watch.close()
    return render(result, fields.response_format, duration)


def _submit(worker: ModelWorker, jobs: list[FileJob]) -> list:
    try:
        return worker.submit_files(jobs)
    except Busy as e:
        raise APIError(429, f"Server busy: {e}", code="server_busy",
                       headers={"Retry-After": str(e.retry_after)}) from e


async def _events(request: Request, futures: list, offsets: list[float], duration: float):
    """One delta per decoded piece as soon as it is ready, then the whole text."""
    watch, parts, text = DisconnectWatch(request), [], ""
    try:
        for offset, future in zip(offsets, futures):
            parts.append((offset, await watch.result(future)))
            so_far = joined(parts, duration).text
            if so_far != text:
                yield text_delta(so_far[len(text):])
                text = so_far
        yield text_done(text)
    except ClientGone:
        return
    except Exception as e:  # noqa: BLE001 - a failed decode ends the stream with an error event
        yield sse({"type": "error", **server_failure(e).body()})
    finally:
        watch.close()
        cancel_all(futures)  # no-op for the finished ones


async def models(request: Request) -> JSONResponse:
    state: ServerState = request.app.state.server
    entry = {"id": state.model_id, "object": "model", "created": int(state.started), "owned_by": "mlx-qwen3asr"}
    return JSONResponse({"object": "list", "data": [entry]})


async def health(request: Request) -> JSONResponse:
    state: ServerState = request.app.state.server
    return JSONResponse({"status": "ok", "model": state.model_id, "uptime_seconds": round(time.time() - state.started, 1),
                         "live_sessions": state.live_sessions, **state.worker.stats()})  # fmt: skip
