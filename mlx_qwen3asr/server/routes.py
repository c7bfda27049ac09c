"""HTTP endpoints: POST /v1/audio/transcriptions, GET /v1/models, GET /health.

multipart -> read_request (fields) -> decode_audio (thread pool) -> worker.submit_files
  -> await the job future (cancelled when the client leaves) -> render
stream=true: the job's on_segment (worker thread) -> an asyncio queue -> one SSE delta per
  segment as it is decoded -> (diarized_json: one transcript.text.segment event per speaker segment)
  -> the done event with the whole text
A server started with --diarize labels speakers (after decoding and alignment) for the formats that show them.
"""

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Optional

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from mlx_qwen3asr.audio import SAMPLE_RATE
from mlx_qwen3asr.decode.transcribe import join_texts
from mlx_qwen3asr.options import DecodeOptions, OptionError

from .disconnect import ClientGone, DisconnectWatch, cancel_all
from .errors import APIError, server_failure
from .limits import DEFAULT_MAX_AUDIO_SECONDS, TOKENIZING_AT_ONCE
from .responses import render, segment_events, sse, text_delta, text_done
from .transcription import UploadJob
from .uploads import decode_audio, read_request
from .worker import Busy, ModelWorker


@dataclass
class ServerState:
    worker: ModelWorker
    model_id: str  # what /v1/models lists
    has_aligner: bool = False
    has_diarizer: bool = False  # --diarize: speakers in verbose_json, srt, vtt and diarized_json
    started: float = 0.0  # time.time() when the model was ready
    max_new_tokens: Optional[int] = None  # cap per decoded chunk, files and live (random test models)
    max_audio_seconds: Optional[float] = DEFAULT_MAX_AUDIO_SECONDS  # longer uploads: 400
    allowed_origins: tuple[str, ...] = ()  # WebSocket origins beyond the server's own (--allow-origin)
    max_live_sessions: int = 8
    live_sessions: int = 0  # open WebSocket sessions (changed on the event loop only)
    # prompts tokenized at once (threads): each 1 MB prompt holds ~150 MB of encoding while it runs
    tokenizing: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(TOKENIZING_AT_ONCE))


async def transcriptions(request: Request) -> Response:
    state: ServerState = request.app.state.server
    fields = await read_request(request, state.has_aligner, state.has_diarizer)
    wave = await run_in_threadpool(decode_audio, fields.audio, fields.filename, state.max_audio_seconds)
    duration = len(wave) / SAMPLE_RATE
    options = DecodeOptions(fields.language, fields.prompt, state.max_new_tokens, fields.hotwords)
    await run_in_threadpool(checked_options, state, options)  # tokenizing a long prompt takes a while
    if fields.stream:
        loop, segments = asyncio.get_running_loop(), asyncio.Queue()
        diarized = fields.response_format == "diarized_json"  # a stream shows speakers only in this format
        job = UploadJob(wave, options, speakers=diarized,
                      on_segment=lambda s: loop.call_soon_threadsafe(segments.put_nowait, s))  # fmt: skip
        (future,) = _submit(state.worker, [job])
        future.add_done_callback(lambda _: loop.call_soon_threadsafe(segments.put_nowait, None))  # after them all
        return StreamingResponse(_events(request, future, segments, diarized), media_type="text/event-stream")
    futures = _submit(
        state.worker, [UploadJob(wave, options, words=fields.words, speakers=fields.speakers(state.has_diarizer))]
    )
    watch = DisconnectWatch(request)
    try:
        result = await watch.result(futures[0])
    except ClientGone:
        return Response(status_code=499)  # never delivered: nobody is listening
    finally:
        watch.close()
    return render(result, fields.response_format, duration, fields.words)


def checked_options(state: ServerState, options: DecodeOptions) -> DecodeOptions:
    """`options` when the served model can be asked them (DecodeOptions.check: its family's languages, the
    `prompt` field's length), else APIError 400 naming the field (blocking: tokenizes the prompt)."""
    with state.tokenizing:
        try:
            return options.check(state.worker.models.asr)
        except OptionError as e:
            if e.option == "language":
                raise APIError(400, str(e), param="language") from e
            raise APIError(400, f"`prompt`: {e}", param="prompt") from e


def _submit(worker: ModelWorker, jobs: list[UploadJob]) -> list:
    try:
        return worker.submit_files(jobs)
    except Busy as e:
        raise APIError(429, f"Server busy: {e}", code="server_busy", headers={"Retry-After": str(e.retry_after)}) from e


async def _events(request: Request, future, segments: asyncio.Queue, diarized: bool = False):
    """One delta per decoded segment with text as soon as it is ready, the speaker segments when
    diarized, then the whole text."""
    watch, decoded, text = DisconnectWatch(request), [], ""
    try:
        while (segment := await watch.first(segments.get())) is not None:
            decoded.append(segment)
            so_far = join_texts(decoded)  # the library's rule: the deltas add up to the final text
            if so_far != text:
                yield text_delta(so_far[len(text) :])
                text = so_far
        result = await watch.result(future)
        for event in segment_events(result) if diarized else []:
            yield sse(event)
        yield text_done(result.text)
    except ClientGone:
        return
    except Exception as e:  # noqa: BLE001 - a failed decode ends the stream with an error event
        yield sse({"type": "error", **server_failure(e).body()})
    finally:
        watch.close()
        cancel_all([future])  # a no-op once it runs: a started batch finishes


async def models(request: Request) -> JSONResponse:
    state: ServerState = request.app.state.server
    entry = {"id": state.model_id, "object": "model", "created": int(state.started), "owned_by": "mlx-qwen3asr"}
    return JSONResponse({"object": "list", "data": [entry]})


async def health(request: Request) -> JSONResponse:
    state: ServerState = request.app.state.server
    return JSONResponse({"status": "ok", "model": state.model_id, "uptime_seconds": round(time.time() - state.started, 1),
                         "live_sessions": state.live_sessions, **state.worker.stats()})  # fmt: skip
