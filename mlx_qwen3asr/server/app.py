"""The ASGI application: routes + the two gates every request passes first.

request -> BearerAuth (with --api-key: "Authorization: Bearer KEY", or from a browser's WebSocket the
           subprotocol "bearer.<key in base64url>"; except /health and the page at /)
        -> UploadLimit (HTTP bodies over --max-upload-mb: 413, by Content-Length or while reading;
                        a body stalled for --client-timeout or unfinished after UPLOAD_SECONDS: 408)
        -> routes (routes.py, live.py, page.py); APIError / HTTPException -> OpenAI error JSON
"""

import asyncio
import hmac
import time
from typing import Optional

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import APIError, api_error, http_error, server_error
from .handshake import POLICY, bearer_from_protocols
from .limits import CLIENT_TIMEOUT_SECONDS, UPLOAD_SECONDS
from .live import live_endpoint
from .page import page
from .routes import ServerState, health, models, transcriptions

OPEN_PATHS = ("/health", "/")  # the page asks for the key itself


class BearerAuth:
    def __init__(self, app: ASGIApp, api_key: Optional[str]):
        self.app, self.expected = app, f"Bearer {api_key}".encode() if api_key else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.expected is None or scope["type"] not in ("http", "websocket") or scope["path"] in OPEN_PATHS:
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        given = headers.get("authorization", "").encode()
        if scope["type"] == "websocket" and not given:  # a browser's WebSocket cannot set headers
            key = bearer_from_protocols(headers.get("sec-websocket-protocol", ""))
            given = f"Bearer {key}".encode() if key is not None else b""
        if hmac.compare_digest(given, self.expected):
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            return await send({"type": "websocket.close", "code": POLICY})  # refused before accept: HTTP 403
        error = APIError(401, "Missing or wrong API key: send the header 'Authorization: Bearer KEY' with the "
                              "server's --api-key", code="invalid_api_key")  # fmt: skip
        await error.response()(scope, receive, send)


class UploadLimit:
    """HTTP bodies over max_bytes get 413. The rest of such a body (up to DRAIN_FACTOR x the limit) is
    read and discarded first: a client still sending when the answer comes sees a broken pipe, not
    the 413."""

    DRAIN_FACTOR = 4

    def __init__(self, app: ASGIApp, max_bytes: int, idle_seconds: float = CLIENT_TIMEOUT_SECONDS):
        self.app, self.max_bytes, self.idle_seconds = app, max_bytes, idle_seconds

    def _too_large(self) -> APIError:
        return APIError(413, f"The upload is larger than the server's limit of {self.max_bytes / 1e6:g} MB "
                             "(--max-upload-mb)", param="file", code="file_too_large")  # fmt: skip

    async def _drain(self, receive: Receive, received: int) -> None:
        more = True
        while more and received <= self.DRAIN_FACTOR * self.max_bytes:
            try:
                message = await asyncio.wait_for(receive(), self.idle_seconds)
            except asyncio.TimeoutError:
                return
            received += len(message.get("body", b""))
            more = message.get("more_body", False) and message["type"] == "http.request"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = Headers(scope=scope).get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            await self._drain(receive, 0)
            return await self._too_large().response()(scope, receive, send)
        received, body_done, deadline = 0, False, time.monotonic() + UPLOAD_SECONDS

        async def counted() -> dict:  # a chunked upload without a length is stopped when it crosses
            nonlocal received, body_done
            if body_done:  # after the body only the client's leaving is awaited (disconnect.py)
                return await receive()
            message = await _timed(receive, min(self.idle_seconds, deadline - time.monotonic()))
            body_done = not message.get("more_body", False)
            received += len(message.get("body", b""))
            if received > self.max_bytes:
                if message.get("more_body", False):
                    await self._drain(receive, received)
                raise self._too_large()
            return message

        await self.app(scope, counted, send)


async def _timed(receive: Receive, seconds: float) -> dict:
    """The next body message, or 408 when a slow client has not sent it in time."""
    try:
        return await asyncio.wait_for(receive(), max(seconds, 0.0))
    except asyncio.TimeoutError:
        raise APIError(408, f"The upload was too slow (it stalled, or was not done in {UPLOAD_SECONDS:g} s): "
                            "send the file at once", code="upload_timeout") from None  # fmt: skip


async def client_left(request, error: ClientDisconnect) -> Response:
    """A client that leaves mid-upload: nobody to answer, nothing to log."""
    return Response(status_code=499)


def build_app(
    state: ServerState,
    api_key: Optional[str] = None,
    max_upload_bytes: int = 25_000_000,
    client_timeout: float = CLIENT_TIMEOUT_SECONDS,
) -> Starlette:
    routes = [
        Route("/v1/audio/transcriptions", transcriptions, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/", page, methods=["GET"]),
        WebSocketRoute("/v1/audio/live", live_endpoint),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(BearerAuth, api_key=api_key),
            Middleware(UploadLimit, max_bytes=max_upload_bytes, idle_seconds=client_timeout),
        ],
        exception_handlers={
            APIError: api_error,
            HTTPException: http_error,
            ClientDisconnect: client_left,
            Exception: server_error,
        },  # fmt: skip
    )
    app.state.server = state
    app.state.api_key_required = api_key is not None  # the page asks for it
    return app
