"""Errors in OpenAI's shape: every failure a client sees is one JSON body with a message.

    raise APIError(400, "Unsupported language 'xx': ...", param="language")
    -> 400 {"error": {"message": ..., "type": "invalid_request_error", "param": "language", "code": null}}

Starlette's own HTTP errors (unknown route 404, wrong method 405, bad multipart 400) get the same
shape through `http_error`, and any other exception a 500 through `server_error`.
"""

from typing import Optional

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

TYPES = {401: "authentication_error", 404: "not_found_error", 413: "invalid_request_error",
         429: "rate_limit_error", 500: "server_error", 503: "server_error"}  # fmt: skip


class APIError(Exception):
    """A request the server answers with `status` and an OpenAI error body."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        param: Optional[str] = None,
        code: Optional[str] = None,
        headers: Optional[dict[str, str]] = None,
    ):
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code
        self.headers = headers or {}

    def body(self) -> dict:
        kind = TYPES.get(self.status, "invalid_request_error")
        return {"error": {"message": self.message, "type": kind, "param": self.param, "code": self.code}}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


async def api_error(request: Request, error: APIError) -> JSONResponse:
    return error.response()


async def http_error(request: Request, error: HTTPException) -> JSONResponse:
    return APIError(error.status_code, str(error.detail), headers=error.headers).response()


def server_failure(error: Exception) -> APIError:
    return APIError(500, f"Internal error: {type(error).__name__}: {error}", code="server_error")


async def server_error(request: Request, error: Exception) -> JSONResponse:
    """A bug or a failed model call: the client gets the cause; Starlette then logs the traceback."""
    return server_failure(error).response()
