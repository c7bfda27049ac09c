"""Who may open a live session: the API key a browser offers as a subprotocol, and the page's Origin.

Sec-WebSocket-Protocol: mlx-qwen3asr, bearer.<key in base64url>   (browsers cannot set headers)
Origin: a web page's address. Any page the user visits may open ws://127.0.0.1:8000 from the
        browser, so, with or without a key, only the server's own page (the same host and port)
        and the origins of --allow-origin may; clients that are not browsers send no Origin.
"""

import base64
import binascii
from typing import Optional
from urllib.parse import urlsplit

from starlette.websockets import WebSocket

from .errors import APIError

# Browsers cannot set headers on a WebSocket: they offer the key as a subprotocol instead (as OpenAI's
# realtime API does), "bearer." + the key in base64url without padding, beside PROTOCOL.
PROTOCOL, BEARER_PROTOCOL = "mlx-qwen3asr", "bearer."
POLICY = 1008  # the WebSocket close code of a refusal


def bearer_from_protocols(header: str) -> Optional[str]:
    """The API key a browser offered as a `bearer.<base64url>` subprotocol, or None."""
    for protocol in (p.strip() for p in header.split(",")):
        if protocol.startswith(BEARER_PROTOCOL):
            encoded = protocol[len(BEARER_PROTOCOL) :]
            try:
                return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
            except (binascii.Error, UnicodeDecodeError):
                return None
    return None


def origin_allowed(origin: Optional[str], host: Optional[str], allowed: tuple[str, ...]) -> bool:
    """No Origin (not a browser), the same host and port as the request's Host header, or one of
    `allowed` ("*": every origin)."""
    if origin is None or "*" in allowed or origin.rstrip("/") in allowed:
        return True
    if origin == "null" or not host:
        return False
    return urlsplit(origin).netloc.lower() == host.lower()


async def origin_refused(websocket: WebSocket, allowed: tuple[str, ...]) -> bool:
    """True (the handshake answered 403 in OpenAI's shape) when the page's Origin may not connect."""
    origin = websocket.headers.get("origin")
    if origin_allowed(origin, websocket.headers.get("host"), allowed):
        return False
    error = APIError(403, f"Live sessions from the web page at {origin} are not allowed: start the server with "
                          f"--allow-origin {origin}", param="origin", code="origin_not_allowed")  # fmt: skip
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(error.response())
    else:
        await websocket.close(POLICY)
    return True
