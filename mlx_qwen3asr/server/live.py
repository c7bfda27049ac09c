"""The live endpoint: one WebSocket = one mq.LiveSession (or, with engine=window, a WindowSession).

    ws://HOST:PORT/v1/audio/live?language=en&prompt=...&encoding=pcm16&sample_rate=48000&channels=2&numbered=true
    binary frames (live_frames.py) -> backlog of samples [n, channels] and the gaps their numbers prove
    pump: whenever the backlog has audio and no step is running
          -> worker.call(session.feed(backlog, captured_at=its last arrival, partial=no more waiting));
             a gap -> session.gap(its seconds): the open utterance is committed, a "gap" event says so
          -> its Events, each as Event.to_json() (the app's `--events jsonl` lines, docs/live.md)
    {"type": "finish"} -> after the backlog, worker.call(session.finish()) -> its events, session.done
    {"type": "session.update", "prompt": ...} before the first audio: a prompt too long for a URL
    --partials-model: each session's partials from that model (two-pass: streaming/two_pass.py), commits from --model
    disconnect -> the in-flight step is cancelled (skipped if not started, stopped at its next token if
                  running), the session dropped

The same audio gives the same commits (text, start, end) as the library and the app: LiveSession's
decisions depend on sample counts only, never on how the audio was blocked; it resamples the client's
rate itself (docs/live.md). At most one step per session is queued at a time, so sessions share the
worker round-robin, and audio that arrives during a step is fed in the next one (steps grow).
"""

import asyncio
import dataclasses
import json
import time
from typing import Optional, Union

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

from mlx_qwen3asr.decode.prefix_cache import PrefixCache
from mlx_qwen3asr.families.recogniser import Recogniser
from mlx_qwen3asr.options import DecodeOptions
from mlx_qwen3asr.streaming import Event, LiveSession, LiveTranscriber, StreamingTranscriber, WindowSession
from mlx_qwen3asr.streaming.two_pass import two_pass_engine
from mlx_qwen3asr.streaming.utterances import make_engine
from mlx_qwen3asr.streaming.window_decoder import window_decoder

from .errors import APIError
from .handshake import POLICY, PROTOCOL, origin_refused
from .live_frames import FrameReader
from .live_options import LiveOptions, live_options
from .routes import checked_options
from .worker import ModelWorker

MAX_BACKLOG_SECONDS = 30.0  # a client this far ahead of decoding is told so and disconnected
BUSY, INTERNAL_ERROR = 1013, 1011  # WebSocket close codes (POLICY, 1008: handshake.py)


async def check_prompt(state, options: LiveOptions) -> None:
    """APIError 400 when the served model's prompt cannot take this language and prompt (its length in
    tokens): tokenizing a long prompt takes a while, so it runs on a thread."""
    asked = DecodeOptions(options.language, options.prompt, hotwords=options.hotwords)
    await run_in_threadpool(checked_options, state, asked)


def error_event(error: APIError) -> dict:
    return {"type": "error", **error.body()}


def make_session(
    model: Recogniser,
    options: LiveOptions,
    server_cap: Optional[int],
    prefixes: PrefixCache,
    vad=None,
    partials: Optional[Recogniser] = None,
) -> LiveTranscriber:
    """The connection's session on the served model, its prompt head from the server's PrefixCache, its
    partials from `partials` when the server has one (--partials-model). The options were checked at the
    handshake or the session.update (check_prompt): the session's decoder is made here, so the session does
    not check them again (the first model gets those it can take: two_pass.first_pass_options)."""
    decode = options.decode_options(server_cap, model.chunk_seconds)
    if options.engine == "window":
        decoder = window_decoder(model, decode, prefix_cache=prefixes)
        return WindowSession(StreamingTranscriber.on_decoder(decoder, decode, sample_rate=options.sample_rate))
    if partials is None:
        engine = make_engine(model, "streaming", decode, prefixes)
    else:
        engine = two_pass_engine(model, partials, decode, prefixes)
    return LiveSession.on_engine(
        engine, pause=options.pause, max_utterance=options.max_utterance,
        sample_rate=options.sample_rate, channels_last=True, vad=vad,
    )  # fmt: skip


class LiveConnection:
    def __init__(
        self, websocket: WebSocket, worker: ModelWorker, options: LiveOptions, max_new_tokens=None, state=None
    ):
        self.ws, self.worker, self.options, self.server_cap = websocket, worker, options, max_new_tokens
        self.state = state  # for checking a prompt sent in a session.update message
        self.audio_seen = False
        self.backlog: list[Union[np.ndarray, float]] = []  # samples [n, channels], or a gap's seconds
        self.frames = FrameReader(options.encoding, options.channels, options.sample_rate, options.numbered)
        self.arrived = 0.0  # time.monotonic() when the backlog's last frame came
        self.finish_requested = False
        self.wake = asyncio.Event()
        self.step = None  # the asyncio future of the step in flight
        self.session: Optional[LiveTranscriber] = None

    async def run(self) -> None:
        o = self.options
        await self.ws.send_json(
            {"type": "session.created", "sample_rate": o.sample_rate, "channels": o.channels, "numbered": o.numbered,
             "encoding": o.encoding, "language": o.language, "engine": o.engine, "pause": o.pause,
             "max_utterance": o.max_utterance}
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
        """Queue a frame's samples, after the gap its number proves; a malformed frame is dropped and
        reported, the session goes on."""
        try:
            gap, samples = self.frames.read(data)
        except APIError as e:
            return e
        self.backlog += [samples] if gap is None else [gap, samples]
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
                make = lambda m, o=self.options: make_session(m.asr, o, self.server_cap, m.prefixes, m.vad, m.partials)  # noqa: E731
                self.session = await self._on_worker(make)
            if self.backlog:
                waiting, arrived = self.backlog, self.arrived
                self.backlog = []
                frames = sum(len(x) for x in waiting if isinstance(x, np.ndarray))
                if frames > MAX_BACKLOG_SECONDS * self.options.sample_rate:
                    await self._fall_behind(frames)
                    return
                await self._send(await self._on_worker(lambda m, x=waiting, t=arrived: self._feed(x, t)))
            if self.finish_requested and not self.backlog:
                self.finish_requested = False
                await self._send(await self._on_worker(lambda m: self.session.finish()))
                stats = self.session.stats
                await self.ws.send_json(
                    {"type": "session.done", "text": self.session.committed, "language": stats.language,
                     "audio_seconds": round(stats.audio_seconds, 3)}
                )  # fmt: skip

    def _feed(self, waiting: list[Union[np.ndarray, float]], arrived: float) -> list[Event]:
        """On the worker: the audio in order, each proven gap where it was (the audio between joined);
        a partial only when no more audio is waiting (a partial never delays a commit)."""
        events: list[Event] = []
        while waiting:
            cut = next((i for i, x in enumerate(waiting) if not isinstance(x, np.ndarray)), len(waiting))
            if cut:
                last = cut == len(waiting) and not self.backlog
                events += self.session.feed(np.concatenate(waiting[:cut]), captured_at=arrived, partial=last)
            if cut < len(waiting):
                events += self.session.gap(waiting[cut])  # LiveSession's: engine=window takes no numbered frames
            waiting = waiting[cut + 1 :]
        return events

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
        seconds = samples / self.options.sample_rate
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
