"""Process plumbing, beneath the stages: what a process does around the model, never what it computes.

    blas.py        on Linux, the fast BLAS preloaded before MLX starts (blas_router.c: MKL for products
                   of few rows, OpenBLAS for many) and its thread counts
    allocator.py   MLX's CPU buffer cache: kept between chunks, given back when a streaming window closes
    memory.py      how much memory this process may still take (RAM, cgroup, ulimit -v): the check before loading
    lifecycle.py   what every entry point does around its main (MLX's streams released at exit)
    interrupt.py   stopping a decode from outside it (the server drops the step of a client that left)

A Python program on Linux gets the command lines' BLAS by calling `ensure_fast_blas()` first.
"""

from .blas import ensure_fast_blas

__all__ = ["ensure_fast_blas"]
