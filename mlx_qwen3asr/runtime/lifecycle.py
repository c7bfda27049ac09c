"""What every entry point (the CLI, the converter, the dictation app, the server) does around its main."""

import atexit
import functools
from collections.abc import Callable

import mlx.core as mx


def releases_mlx_streams(main: Callable[..., int]) -> Callable[..., int]:
    """An entry point after which MLX's main-thread streams are released when the process exits.
    MLX 0.32 asks every thread that used it to call mx.clear_streams() at its end; left to MLX's own
    teardown, a process can abort at exit after its work is done. (Not right after main() returns:
    tests call main() in-process and keep using MLX on this thread.)"""

    @functools.wraps(main)
    def entry_point(*args, **kwargs) -> int:
        atexit.unregister(mx.clear_streams)  # once, however many entry points ran
        atexit.register(mx.clear_streams)
        return main(*args, **kwargs)

    return entry_point
