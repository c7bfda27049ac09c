"""MLX's CPU allocator: keep freed buffers for reuse instead of handing them back to the OS.

MLX's CPU-only builds (the Linux `mlx[cpu]` wheel, MLX >= 0.32) keep at most 32 MB of freed buffers.
Anything larger goes back to the OS, and the next array of that size pays a page fault for every
4 KiB page it touches first: one `x * 2` over 61 MB took 68 ms (15,000 faults) where reused memory
took 7.6 ms, and the encoder's conv stem makes arrays of 20-100 MB layer after layer, chunk batch
after chunk batch. Keeping more freed buffers makes those reuses (the 10 s encoder 1.81 -> 1.27 s,
quiet, docs/performance.md). MLX reuses a cached buffer only for a request of nearly its size, and a full
cache takes no more, so the limit is sized for the encoder's working set, not for everything.
Cost: up to that much memory held between calls (`mx.clear_cache()` returns it). GPU backends have
their own allocator and are left alone, and so is a limit the user set before loading.

A streaming session gives its freed buffers back whenever a window closes (release_window): each
window's arrays have other sizes than the last one's, so kept buffers were seldom reused and piled
up to the cap. A StreamingTranscriber session on the tiny model grew from 617 to 2273 MB of RSS in 12
minutes of speech with them kept, and stayed within 401-546 MB with them given back. The price is
speed where steps are mostly allocation (the tiny model: a 30-minute session took 193-200 s against
164-168 s, at a load of 15-20; docs/streaming.md, "Numbers": the table of a long session).
"""

import mlx.core as mx

from .memory import memory_size

MLX_CPU_DEFAULT_CACHE_LIMIT = 32 << 20  # the CPU-only allocator's own default
MAX_CPU_CACHE = 2 << 30


def cpu_cache_limit() -> int:
    """How much freed memory to keep: an eighth of the memory this process may use, at most MAX_CPU_CACHE."""
    return min(MAX_CPU_CACHE, memory_size() // 8)


def keep_cpu_buffers() -> None:
    """On a CPU-only MLX, let the allocator keep cpu_cache_limit() bytes of freed buffers."""
    if mx.is_available(mx.gpu):
        return
    previous = mx.set_cache_limit(cpu_cache_limit())
    if previous != MLX_CPU_DEFAULT_CACHE_LIMIT:  # the user's own choice stands
        mx.set_cache_limit(previous)


def release_window() -> None:
    """A streaming window closed: its arrays' sizes will not come again, give the freed buffers back."""
    mx.clear_cache()


def release_between_batches() -> None:
    """Between long pieces of work: give freed buffers back where the cache is unbounded (GPU backends,
    whose cache may grow to the memory limit); a CPU-only MLX's cache is capped and kept for reuse."""
    if mx.is_available(mx.gpu):
        mx.clear_cache()
