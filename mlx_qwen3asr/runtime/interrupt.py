"""Stopping a decode from outside it: the server drops the step of a live client that left.

    with interruptible(lambda: client_gone):   # on the thread that decodes
        session.feed(...)                        # decode/generate.py calls check_interrupt() before each
                                                 # prefill block and each token -> Interrupted

The check is a context variable of the decoding thread, so the library's signatures stay as they
are and a decode run without it costs one lookup per token.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Optional

_should_stop: ContextVar[Optional[Callable[[], bool]]] = ContextVar("should_stop", default=None)


class Interrupted(Exception):
    """The decode was stopped because its caller no longer wants the result."""


@contextmanager
def interruptible(should_stop: Callable[[], bool]) -> Iterator[None]:
    """Decodes run inside stop at their next token once should_stop() is true."""
    token = _should_stop.set(should_stop)
    try:
        yield
    finally:
        _should_stop.reset(token)


def check_interrupt() -> None:
    """Raise Interrupted when the decode running on this thread is no longer wanted."""
    should_stop = _should_stop.get()
    if should_stop is not None and should_stop():
        raise Interrupted("the decode was stopped: nobody waits for its result")
