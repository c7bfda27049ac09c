"""The CPU backend's BLAS on Linux: the fastest one installed, never the slow one silently.

    entry point main() -> ensure_fast_blas()
        not Linux, or a known BLAS already preloaded (a user's choice)   -> nothing to do
        the first of PREFERENCE installed, not tried yet                  -> re-execute this same command
                                                                             with it in LD_PRELOAD
        otherwise                                                         -> one warning with the fix
    scripts/env.sh (run.sh, test.sh) -> `python mlx_qwen3asr/blas.py` -> the same choice as shell exports

The mlx[cpu] wheel for Linux bundles the reference BLAS: one clip took 50.8 s on it and 10.0 s
with OpenBLAS preloaded. Preloading is the only way to swap it, and a preload takes effect only
when a process starts, hence the re-exec (guarded by REEXEC_FLAG so it happens at most once).
Why MKL first on x86-64: decoding is most of a transcription's time, and MKL runs its one-row
products ~1.4x faster than Debian's OpenBLAS 0.3.21 (docs/performance.md has the measurements).

`threads(n)` sets the preloaded BLAS's thread count for a while (the one-row decode runs its products
on two CPU streams, each with its share of the threads: model/step.py).
"""

import ctypes
import os
import site
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

OPENBLAS_PATHS = ("/usr/lib/x86_64-linux-gnu/libopenblas.so.0", "/usr/lib/aarch64-linux-gnu/libopenblas.so.0")
# The BLAS libraries a Linux process can preload, by name, with the environment each needs.
LIBRARIES = {
    "openblas": OPENBLAS_PATHS,
    # PyPI `mkl` (a Linux x86-64 dependency), in this environment or in the user's site
    "mkl": tuple(os.path.join(base, "lib", "libmkl_rt.so.3") for base in (sys.prefix, site.getuserbase())),
    "blis": ("/usr/lib/x86_64-linux-gnu/libblis.so.4", "/usr/lib/aarch64-linux-gnu/libblis.so.4"),
}
PREFERENCE = ("mkl", "openblas")  # the first one installed is used
LIBRARY_ENV = {"mkl": {"MKL_THREADING_LAYER": "INTEL"}}  # libmkl_rt picks its threading at run time
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
REEXEC_FLAG = "MLX_QWEN3ASR_BLAS_REEXEC"  # set in the re-executed process
SHOW_FLAG = "MLX_QWEN3ASR_SHOW_BLAS"  # "1": print the BLAS in use to stderr (tests, diagnosis)
SLOW_BLAS_WARNING = (
    "warning: MLX is using its slow reference BLAS (about 5x slower on the CPU): install "
    "MKL (pip install mkl) or OpenBLAS (sudo apt install libopenblas0-pthread); it is then "
    "used automatically"
)


# Each preloadable BLAS's run-time thread count: (setter, getter) symbol names.
THREAD_FUNCTIONS = {
    "openblas": ("openblas_set_num_threads", "openblas_get_num_threads"),
    "mkl": ("MKL_Set_Num_Threads", "MKL_Get_Max_Threads"),
    "blis": ("bli_thread_set_num_threads", "bli_thread_get_num_threads"),
}


class _DlInfo(ctypes.Structure):
    _fields_ = [
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    ]


def global_cblas() -> str:
    """The library whose cblas_sgemm the process's global scope holds (a preloaded BLAS), or "".

    MLX's own reference BLAS is a private dependency of its extension module (loaded RTLD_LOCAL), so
    it never shows here; a preloaded library comes first in every symbol lookup, MLX's included.
    numpy's bundled OpenBLAS renames its symbols (scipy_openblas64_) and does not count.
    """
    process = ctypes.CDLL(None)
    try:
        address = ctypes.cast(process.cblas_sgemm, ctypes.c_void_p)
    except AttributeError:
        return ""
    info = _DlInfo()
    if not process.dladdr(address, ctypes.byref(info)) or not info.dli_fname:
        return ""
    return os.fsdecode(info.dli_fname)


def known_library(path: str) -> str:
    """The name (a key of LIBRARIES) of the BLAS at `path`, or "" when it is none of them."""
    return next((n for n, paths in LIBRARIES.items() if any(os.path.basename(p) in path for p in paths)), "")


@cache  # the preloaded library cannot change while the process runs
def _thread_functions() -> tuple:
    """(set, get) of the preloaded BLAS's thread count, or (None, None) (reference BLAS, macOS)."""
    path = global_cblas()
    name = known_library(path)
    if not name:
        return None, None
    library = ctypes.CDLL(path)  # already loaded: the same handle
    setter, getter = (getattr(library, symbol) for symbol in THREAD_FUNCTIONS[name])
    setter.argtypes, setter.restype, getter.restype = [ctypes.c_int], None, ctypes.c_int
    return setter, getter


def thread_count() -> int:
    """The preloaded BLAS's thread count now (0 when no known BLAS is preloaded)."""
    getter = _thread_functions()[1]
    return getter() if getter else 0


@contextmanager
def threads(n: int) -> Iterator[None]:
    """Run the block with the preloaded BLAS on n threads, then restore its count (no-op without one).
    The count is process-wide: only for a block that is the process's only BLAS work meanwhile."""
    setter, getter = _thread_functions()
    if setter is None:
        yield
        return
    before = getter()
    setter(max(1, n))
    try:
        yield
    finally:
        setter(before)


def installed_library(name: str) -> str:
    """The path of BLAS `name` (a key of LIBRARIES) on this machine, or "" when it is not installed."""
    return next((path for path in LIBRARIES[name] if os.path.exists(path)), "")


def chosen_library() -> str:
    """The name of the BLAS this machine should use (the first of PREFERENCE installed), or ""."""
    return next((name for name in PREFERENCE if installed_library(name)), "")


def preload_environment(name: str, base: dict) -> dict:
    """`base` with BLAS `name` preloaded first in LD_PRELOAD (any other BLAS there dropped, other
    preloads kept) and the variables it needs; "reference" preloads no BLAS."""
    known = {path for paths in LIBRARIES.values() for path in paths}
    others = [p for p in base.get("LD_PRELOAD", "").split(":") if p and p not in known]
    env = {k: v for k, v in base.items() if k != "LD_PRELOAD"}
    if name != "reference":
        path = installed_library(name)
        if not path:
            raise FileNotFoundError(f"BLAS {name!r} is not installed (looked for {', '.join(LIBRARIES[name])})")
        others.insert(0, path)
        env.update(LIBRARY_ENV.get(name, {}))
    return {**env, "LD_PRELOAD": ":".join(others)} if others else env


def ensure_fast_blas() -> None:
    """Call first thing in a command-line entry point (it may replace the process)."""
    if not sys.platform.startswith("linux"):
        return
    in_use = global_cblas()
    if os.environ.get(SHOW_FLAG) == "1":
        print(f"blas: {in_use or 'reference'}", file=sys.stderr)
    if known_library(in_use):
        return
    name = chosen_library()
    if name and not os.environ.get(REEXEC_FLAG):
        env = {**preload_environment(name, dict(os.environ)), REEXEC_FLAG: "1"}
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, sys.orig_argv, env)
    print(SLOW_BLAS_WARNING, file=sys.stderr)


def shell_exports() -> str:
    """The chosen BLAS's environment as `export` lines for scripts/env.sh (nothing when none is)."""
    name = chosen_library()
    if not name:
        print(SLOW_BLAS_WARNING, file=sys.stderr)
        return ""
    env = preload_environment(name, {"LD_PRELOAD": os.environ.get("LD_PRELOAD", "")})
    return "".join(f"export {key}='{value}'\n" for key, value in env.items())


if __name__ == "__main__":  # run as a file by scripts/env.sh: no package import, no MLX
    sys.stdout.write(shell_exports())
