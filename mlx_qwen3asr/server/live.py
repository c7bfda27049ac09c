"""The live endpoint: one WebSocket = one streaming session on mq.StreamingTranscriber.

    ws://HOST:PORT/v1/audio/live?language=en&prompt=...&encoding=pcm16     (schema: docs/server.md)
    binary frames (16 kHz mono pcm16 / float32, little-endian) -> backlog of samples
    pump: whenever the backlog has audio and no step is running -> worker.call(stream.feed(backlog))
          -> events: transcript.committed (new final text, with times), transcript.partial
             (committed + tentative), language.detected
    {"type": "finish"} -> after the backlog, worker.call(stream.finish()) -> transcript.done
    disconnect -> the in-flight step is cancelled (skipped if not started), the session dropped

At most one step per session is queued at a time, so sessions share the worker round-robin, and audio
that arrives during a step is fed in the next one (steps grow, never pile up).
"""

import asyncio
import json
from dataclasses import dataclass
from typing import Optional

import numpy as np
from starlette.websockets import WebSocket, WebSocketDisconnect

import mlx_qwen3asr as mq
from mlx_qwen3asr.streaming import StreamingOptions

from .errors import APIError
from .languages import resolve_language
from .worker import ModelWorker

ENCODINGS = {"pcm16": np.dtype("<i2"), "float32": np.dtype("<f4")}
MAX_BACKLOG_SECONDS = 30.0  # a client this far ahead of decoding is told so and disconnected
BUSY, POLICY, INTERNAL_ERROR = 1013, 1008, 1011  # WebSocket close codes


@dataclass
class LiveOptions:
    language: Optional[str]
    prompt: str
    encoding: str


def live_options(query) -> LiveOptions:
    encoding = query.get("encoding", "pcm16")
    if encoding not in ENCODINGS:
        raise APIError(400, f"Unsupported encoding {encoding!r}: use pcm16 or float32", param="encoding")
    return LiveOptions(resolve_language(query.get("language")), query.get("prompt", ""), encoding)


def error_event(error: APIError) -> dict:
    return {"type": "error", **error.body()}


class LiveConnection:
    def __init__(self, websocket: WebSocket, worker: ModelWorker, options: LiveOptions, max_new_tokens=None):
        self.ws, self.worker, self.options = websocket, worker, options
        self.stream_options = StreamingOptions(max_new_tokens=max_new_tokens)
        self.backlog: list[np.ndarray] = []
        self.finish_requested = False
        self.wake = asyncio.Event()
        self.step = None  # the asyncio future of the step in flight
        self.language, self.committed_until = "", 0.0

    async def run(self) -> None:
        await self.ws.send_json(
            {
                "type": "session.created",
                "sample_rate": mq.SAMPLE_RATE,
                "encoding": self.options.encoding,
                "language": self.options.language,
            }
        )
        language, prompt, options = self.options.language, self.options.prompt, self.stream_options
        create = self._on_worker(
            lambda m: mq.StreamingTranscriber(m.asr, language, prompt, options=options, prefix_cache=m.prefixes)
        )
        pump, receiver = asyncio.ensure_future(self._pump(create)), asyncio.ensure_future(self._receive())
        try:
            await asyncio.wait({pump, receiver}, return_when=asyncio.FIRST_COMPLETED)
            if pump.done() and pump.exception() is not None:  # a failed model step: say so, end the session
                failure = APIError(500, f"Live transcription failed: {pump.exception()}", code="server_error")
                await self.ws.send_json(error_event(failure))
                await self.ws.close(INTERNAL_ERROR)
        finally:
            pump.cancel()
            receiver.cancel()
            if self.step is not None:
                self.step.cancel()  # not yet started: the worker skips it

    async def _receive(self) -> None:
        """Read frames until the client leaves."""
        try:
            while True:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect":
                    return
                if message.get("bytes") is not None:
                    problem = self._add_audio(message["bytes"])
                else:
                    problem = self._command(message.get("text") or "")
                if problem is not None:
                    await self.ws.send_json(error_event(problem))
                self.wake.set()
        except WebSocketDisconnect:
            return

    def _add_audio(self, data: bytes) -> Optional[APIError]:
        """Queue a frame's samples; a malformed frame is dropped and reported, the session goes on."""
        dtype = ENCODINGS[self.options.encoding]
        if len(data) % dtype.itemsize:
            return APIError(
                400,
                f"A {self.options.encoding} frame must hold whole samples "
                f"({dtype.itemsize} bytes each), got {len(data)} bytes; it was dropped",
                param="audio",
            )
        samples = np.frombuffer(data, dtype)
        if dtype.kind == "f" and not np.isfinite(samples).all():
            return APIError(400, "The frame holds NaN or infinite samples; it was dropped", param="audio")
        self.backlog.append(samples)
        return None

    def _command(self, text: str) -> Optional[APIError]:
        try:
            message = json.loads(text)
        except json.JSONDecodeError:
            message = None
        if isinstance(message, dict) and message.get("type") == "finish":
            self.finish_requested = True
            return None
        return APIError(
            400, f'Unknown message {text[:80]!r}: send binary audio frames or {{"type": "finish"}}', param="type"
        )

    async def _pump(self, create) -> None:
        self.stream = await create
        while True:
            await self.wake.wait()
            self.wake.clear()
            if self.backlog:
                samples = np.concatenate(self.backlog)
                self.backlog = []
                if len(samples) > MAX_BACKLOG_SECONDS * mq.SAMPLE_RATE:
                    await self._fall_behind(len(samples))
                    return
                stream = self.stream
                await self._send_update(await self._on_worker(lambda m, s=stream, x=samples: s.feed(x)))
            if self.finish_requested and not self.backlog:
                self.finish_requested = False
                update = await self._on_worker(lambda m: self.stream.finish())
                await self._send_update(update)
                await self.ws.send_json(
                    {
                        "type": "transcript.done",
                        "text": update.committed,
                        "language": update.language,
                        "audio_seconds": update.audio_seconds,
                    }
                )

    async def _on_worker(self, step):
        self.step = asyncio.wrap_future(self.worker.call(step))
        try:
            return await self.step
        finally:
            self.step = None

    async def _send_update(self, update: mq.Update) -> None:
        if update.language and update.language != self.language:
            self.language = update.language
            await self.ws.send_json({"type": "language.detected", "language": update.language})
        if update.new_committed:
            await self.ws.send_json(
                {
                    "type": "transcript.committed",
                    "text": update.new_committed,
                    "start": self.committed_until,
                    "end": update.audio_seconds,
                    "language": update.language,
                }
            )
            self.committed_until = update.audio_seconds
        if update.steps or update.new_committed:
            await self.ws.send_json(
                {
                    "type": "transcript.partial",
                    "committed": update.committed,
                    "tentative": update.tentative,
                    "language": update.language,
                    "audio_seconds": update.audio_seconds,
                }
            )

    async def _fall_behind(self, samples: int) -> None:
        seconds = samples / mq.SAMPLE_RATE
        error = APIError(
            503,
            f"Decoding fell {seconds:.0f} s behind the audio (limit {MAX_BACKLOG_SECONDS:.0f} s); "
            "send audio in real time or use the file endpoint",
            code="live_backlog_full",
        )
        await self.ws.send_json(error_event(error))
        await self.ws.close(BUSY)


async def live_endpoint(websocket: WebSocket) -> None:
    state = websocket.app.state.server
    await websocket.accept()
    try:
        options = live_options(websocket.query_params)
    except APIError as e:
        await websocket.send_json(error_event(e))
        await websocket.close(POLICY)
        return
    if state.live_sessions >= state.max_live_sessions:
        busy = APIError(503, f"All {state.max_live_sessions} live sessions are in use; retry later", code="server_busy")
        await websocket.send_json(error_event(busy))
        await websocket.close(BUSY)
        return
    state.live_sessions += 1
    try:
        await LiveConnection(websocket, state.worker, options, state.max_new_tokens).run()
    finally:
        state.live_sessions -= 1
