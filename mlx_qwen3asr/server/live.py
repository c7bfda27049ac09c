"""The live endpoint: one WebSocket = one mq.LiveSession (or, with engine=window, a WindowSession).

    ws://HOST:PORT/v1/audio/live?language=en&prompt=...&pause=0.6&encoding=pcm16   (docs/server.md)
    binary frames (16 kHz mono pcm16 / float32, little-endian) -> backlog of (samples, arrival time)
    pump: whenever the backlog has audio and no step is running
          -> worker.call(session.feed(backlog, captured_at=its last arrival, partial=no more waiting))
          -> its Events, each as Event.to_json() (the app's `--events jsonl` lines, docs/live.md)
    {"type": "finish"} -> after the backlog, worker.call(session.finish()) -> its events, session.done
    {"type": "session.update", "prompt": ...} before the first audio: a prompt too long for a URL
    disconnect -> the in-flight step is cancelled (skipped if not started, stopped at its next token if
                  running), the session dropped

The same audio gives the same commits (text, start, end) as the library and the app: LiveSession's
decisions depend on sample counts only, never on how the audio was blocked. At most one step per
session is queued at a time, so sessions share the worker round-robin, and audio that arrives
during a step is fed in the next one (steps grow, never pile up).
"""

import asyncio
import dataclasses
import json
import math
import time
from dataclasses import dataclass
from typing import Optional, Union

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

import mlx_qwen3asr as mq
from mlx_qwen3asr.streaming import Event, LiveSession, WindowSession
from mlx_qwen3asr.streaming.segmenter import (
    MAX_UTTERANCE_SECONDS,
    MIN_MAX_UTTERANCE_SECONDS,
    MIN_PAUSE_SECONDS,
    PAUSE_SECONDS,
)

from .errors import APIError
from .handshake import POLICY, PROTOCOL, origin_refused
from .languages import resolve_language
from .limits import capped_tokens
from .routes import checked_options
from .worker import ModelWorker

ENCODINGS = {"pcm16": np.dtype("<i2"), "float32": np.dtype("<f4")}
ENGINES = ("live", "window")
MAX_BACKLOG_SECONDS = 30.0  # a client this far ahead of decoding is told so and disconnected
BUSY, INTERNAL_ERROR = 1013, 1011  # WebSocket close codes (POLICY, 1008: handshake.py)


@dataclass(frozen=True)
class LiveOptions:
    language: Optional[str]
    prompt: str
    encoding: str
    engine: str = "live"
    max_new_tokens: Optional[int] = None
    pause: float = PAUSE_SECONDS
    max_utterance: float = MAX_UTTERANCE_SECONDS

    def decode_options(self, server_cap: Optional[int]) -> mq.DecodeOptions:
        return mq.DecodeOptions(self.language, self.prompt, capped_tokens(self.max_new_tokens, server_cap))


def _number(query, name: str, default: float, minimum: float, integer: bool = False) -> float:
    text = query.get(name)
    if text is None:
        return default
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        value = math.nan
    if not value >= minimum or math.isinf(value):
        kind = "a whole number" if integer else "a number of seconds"
        raise APIError(400, f"{name} must be {kind}, at least {minimum:g}; got {text!r}", param=name)
    return value


def live_options(query) -> LiveOptions:
    """The session's options from the query string; a bad one is an APIError naming it. The prompt is
    checked against the model by check_prompt, off the event loop."""
    encoding = query.get("encoding", "pcm16")
    if encoding not in ENCODINGS:
        raise APIError(400, f"Unsupported encoding {encoding!r}: use pcm16 or float32", param="encoding")
    engine = query.get("engine", "live")
    if engine not in ENGINES:
        raise APIError(400, f"Unknown engine {engine!r}: use live (utterances, the default) or window", param="engine")
    options = LiveOptions(
        resolve_language(query.get("language")),
        query.get("prompt", ""),
        encoding,
        engine,
        _number(query, "max_new_tokens", None, 1, integer=True),
        _number(query, "pause", PAUSE_SECONDS, MIN_PAUSE_SECONDS),
        _number(query, "max_utterance", MAX_UTTERANCE_SECONDS, MIN_MAX_UTTERANCE_SECONDS),
    )
    return options


async def check_prompt(state, options: LiveOptions) -> None:
    """APIError 400 when the served model's prompt cannot take this language and prompt (its length in
    tokens): tokenizing a long prompt takes a while, so it runs on a thread."""
    await run_in_threadpool(checked_options, state, mq.DecodeOptions(options.language, options.prompt))


def error_event(error: APIError) -> dict:
    return {"type": "error", **error.body()}


def make_session(model: mq.Qwen3ASR, options: LiveOptions, server_cap: Optional[int], prefixes):
    """The connection's session on the served model, its prompt head from the server's PrefixCache."""
    decode = options.decode_options(server_cap)
    if options.engine == "window":
        return WindowSession(model, decode, prefix_cache=prefixes or False)
    return LiveSession(
        model, decode, pause=options.pause, max_utterance=options.max_utterance, prefix_cache=prefixes or False
    )


class LiveConnection:
    def __init__(
        self, websocket: WebSocket, worker: ModelWorker, options: LiveOptions, max_new_tokens=None, state=None
    ):
        self.ws, self.worker, self.options, self.server_cap = websocket, worker, options, max_new_tokens
        self.state = state  # for checking a prompt sent in a session.update message
        self.audio_seen = False
        self.backlog: list[np.ndarray] = []
        self.arrived = 0.0  # time.monotonic() when the backlog's last frame came
        self.finish_requested = False
        self.wake = asyncio.Event()
        self.step = None  # the asyncio future of the step in flight
        self.session: Union[LiveSession, WindowSession, None] = None

    async def run(self) -> None:
        o = self.options
        await self.ws.send_json(
            {"type": "session.created", "sample_rate": mq.SAMPLE_RATE, "encoding": o.encoding, "language": o.language,
             "engine": o.engine, "pause": o.pause, "max_utterance": o.max_utterance}
        )  # fmt: skip
        pump, receiver = asyncio.ensure_future(self._pump()), asyncio.ensure_future(self._receive())
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
                    problem = await self._command(message.get("text") or "")
                if problem is not None:
                    await self.ws.send_json(error_event(problem))
                self.wake.set()
        except WebSocketDisconnect:
            return
        except APIError as e:  # a prompt the model cannot take, sent in session.update: as in the query
            await self.ws.send_json(error_event(e))
            await self.ws.close(POLICY)

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
        self.arrived, self.audio_seen = time.monotonic(), True
        return None

    async def _command(self, text: str) -> Optional[APIError]:
        try:
            message = json.loads(text)
        except json.JSONDecodeError:
            message = None
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "finish":
            self.finish_requested = True
            return None
        if kind == "session.update":
            return await self._update(message)
        return APIError(
            400, f'Unknown message {text[:80]!r}: send binary audio frames or {{"type": "finish"}}', param="type"
        )

    async def _update(self, message: dict) -> Optional[APIError]:
        """A prompt too long for the URL, sent before the first audio; a prompt the model cannot take
        raises APIError (the session ends, as for the query)."""
        prompt = message.get("prompt")
        if self.audio_seen or self.finish_requested:
            return APIError(400, "session.update must come before the first audio frame; it was ignored", param="type")
        if not isinstance(prompt, str):
            return APIError(400, f"session.update needs a text `prompt`, got {prompt!r}", param="prompt")
        options = dataclasses.replace(self.options, prompt=prompt)
        await check_prompt(self.state, options)
        self.options = options
        await self.ws.send_json({"type": "session.updated", "prompt_characters": len(prompt)})
        return None

    async def _pump(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            if self.session is None and (self.backlog or self.finish_requested):  # made once the prompt is known
                make = lambda m, o=self.options: make_session(m.asr, o, self.server_cap, m.prefixes)  # noqa: E731
                self.session = await self._on_worker(make)
            if self.backlog:
                samples, arrived = np.concatenate(self.backlog), self.arrived
                self.backlog = []
                if len(samples) > MAX_BACKLOG_SECONDS * mq.SAMPLE_RATE:
                    await self._fall_behind(len(samples))
                    return
                await self._send(await self._on_worker(lambda m, x=samples, t=arrived: self._feed(x, t)))
            if self.finish_requested and not self.backlog:
                self.finish_requested = False
                await self._send(await self._on_worker(lambda m: self.session.finish()))
                stats = self.session.stats
                await self.ws.send_json(
                    {"type": "session.done", "text": self.session.committed, "language": stats.language,
                     "audio_seconds": round(stats.audio_seconds, 3)}
                )  # fmt: skip

    def _feed(self, samples: np.ndarray, arrived: float) -> list[Event]:
        """On the worker: a partial only when no more audio is waiting (a partial never delays a commit)."""
        return self.session.feed(samples, captured_at=arrived, partial=not self.backlog)

    async def _on_worker(self, step):
        self.step = asyncio.wrap_future(self.worker.call(step))
        try:
            return await self.step
        finally:
            self.step = None

    async def _send(self, events: list[Event]) -> None:
        for event in events:
            await self.ws.send_text(event.to_json())

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
    if await origin_refused(websocket, state.allowed_origins):
        return
    offered = [p.strip() for p in websocket.headers.get("sec-websocket-protocol", "").split(",")]
    await websocket.accept(subprotocol=PROTOCOL if PROTOCOL in offered else None)
    try:
        options = live_options(websocket.query_params)
        await check_prompt(state, options)
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
        await LiveConnection(websocket, state.worker, options, state.max_new_tokens, state).run()
    finally:
        state.live_sessions -= 1
