"""Noticing that an HTTP client went away while its jobs wait, so its jobs are cancelled, not decoded.

body read -> watch: a task that reads ASGI receive() until "http.disconnect"
await watch.result(job future) -> the result, or ClientGone when the client left first
await watch.first(anything awaitable) -> the same for a streamed file's next segment
"""

import asyncio
from collections.abc import Awaitable
from concurrent.futures import Future
from typing import TypeVar

from starlette.requests import Request

T = TypeVar("T")


class ClientGone(Exception):
    """The client disconnected before its answer was ready."""


class DisconnectWatch:
    """Use after the request body has been read (receive() then only reports the disconnect)."""

    def __init__(self, request: Request):
        self._task = asyncio.ensure_future(self._until_disconnected(request))

    @staticmethod
    async def _until_disconnected(request: Request) -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass

    async def result(self, future: "Future[T]") -> T:
        """The job's result; cancelling it when the client leaves first (a queued job is skipped)."""
        return await self.first(asyncio.wrap_future(future))

    async def first(self, awaitable: Awaitable[T]) -> T:
        """What `awaitable` gives, or ClientGone (and it is cancelled) when the client leaves first."""
        waiting = asyncio.ensure_future(awaitable)
        await asyncio.wait({waiting, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if not waiting.done():
            waiting.cancel()
            raise ClientGone()
        return waiting.result()

    def close(self) -> None:
        self._task.cancel()


def cancel_all(futures: list[Future]) -> None:
    for future in futures:
        future.cancel()
