"""uvicorn's connection handlers with the two limits it lacks (docs/server.md, "Security").

HTTP:      a connection that has not sent a whole request head within --client-timeout is closed
           (uvicorn waits forever for the first request's headers: one trickling client per
           socket could hold the server's connections and its shutdown)
WebSocket: a handshake whose URL is too long for the WebSocket parser (8 KB: a long `prompt` in
           the query) gets its 414 at once, in OpenAI's error shape; uvicorn 0.54 leaves the
           parser's answer unsent and the client waiting
"""

import json

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import RequestLineTooLong

from .errors import APIError
from .limits import CLIENT_TIMEOUT_SECONDS


def timed_http_protocol(seconds: float = CLIENT_TIMEOUT_SECONDS) -> type:
    """TimedHTTPProtocol closing connections after `seconds` without a whole request head."""
    return type("TimedHTTPProtocol", (TimedHTTPProtocol,), {"head_seconds": seconds})


class TimedHTTPProtocol(H11Protocol):
    """h11, closing a connection whose first request head is not complete within head_seconds."""

    head_seconds = CLIENT_TIMEOUT_SECONDS

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._head_timer = self.loop.call_later(self.head_seconds, self._head_overdue)

    def _head_overdue(self) -> None:
        if self.cycle is None and not self.transport.is_closing():
            self.transport.close()

    def handle_websocket_upgrade(self, event) -> None:  # the head is complete; the WebSocket owns it now
        self._head_timer.cancel()
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc) -> None:
        self._head_timer.cancel()
        super().connection_lost(exc)


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """websockets' handshake parser, its refusal of an over-long request line sent and the socket closed."""

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if isinstance(self.conn.handshake_exc, RequestLineTooLong) and not self.transport.is_closing():
            self.conn.data_to_send()  # the parser's plain-text 414, replaced by one that says what to do
            error = APIError(414, "The WebSocket URL is longer than 8 KB: send a long prompt in a "
                                  '{"type": "session.update", "prompt": ...} message instead', param="prompt")  # fmt: skip
            body = json.dumps(error.body()).encode()
            head = f"HTTP/1.1 414 URI Too Long\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            self.transport.write(head.encode() + b"Connection: close\r\n\r\n" + body)
            self.transport.close()
