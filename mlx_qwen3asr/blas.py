"""The CPU backend's BLAS: never run on the slow one silently.

    entry point main() -> ensure_fast_blas()
        not Linux, or OpenBLAS preloaded (or otherwise global)       -> nothing to do
        OpenBLAS installed (Debian/Ubuntu path), not tried yet       -> re-execute this same command
                                                                        with it in LD_PRELOAD
        otherwise                                                    -> one warning with the fix

The mlx[cpu] wheel for Linux bundles the reference BLAS: one clip took 50.8 s on it and 10.0 s
with OpenBLAS preloaded. Preloading is the only way to swap it, and a preload takes effect only
when a process starts, hence the re-exec (guarded by REEXEC_FLAG so it happens at most once).
"""

import ctypes
import os
import sys

OPENBLAS_PATHS = ("/usr/lib/x86_64-linux-gnu/libopenblas.so.0", "/usr/lib/aarch64-linux-gnu/libopenblas.so.0")
# The BLAS libraries a Linux process can preload, by name, with the environment each needs.
LIBRARIES = {
    "openblas": OPENBLAS_PATHS,
    "mkl": (os.path.join(sys.prefix, "lib", "libmkl_rt.so.3"),),  # PyPI `mkl`, in this environment
    "blis": ("/usr/lib/x86_64-linux-gnu/libblis.so.4", "/usr/lib/aarch64-linux-gnu/libblis.so.4"),
}
LIBRARY_ENV = {"mkl": {"MKL_THREADING_LAYER": "INTEL"}}  # libmkl_rt picks its threading at run time
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
REEXEC_FLAG = "MLX_QWEN3ASR_BLAS_REEXEC"  # set in the re-executed process
SHOW_FLAG = "MLX_QWEN3ASR_SHOW_BLAS"  # "1": print the BLAS in use to stderr (tests, diagnosis)
SLOW_BLAS_WARNING = ("warning: MLX is using its slow reference BLAS (about 5x slower on the CPU): install "
                     "OpenBLAS (sudo apt install libopenblas0-pthread); it is then used automatically")


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


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


def installed_library(name: str) -> str:
    """The path of BLAS `name` (a key of LIBRARIES) on this machine, or "" when it is not installed."""
    return next((path for path in LIBRARIES[name] if os.path.exists(path)), "")


def preload_environment(name: str, base: dict) -> dict:
    """`base` with BLAS `name` preloaded (any other preload dropped); "reference" preloads nothing."""
    env = {k: v for k, v in base.items() if k != "LD_PRELOAD"}
    if name == "reference":
        return env
    path = installed_library(name)
    if not path:
        raise FileNotFoundError(f"BLAS {name!r} is not installed (looked for {', '.join(LIBRARIES[name])})")
    return {**env, "LD_PRELOAD": path, **LIBRARY_ENV.get(name, {})}


def ensure_fast_blas() -> None:
    """Call first thing in a command-line entry point (it may replace the process)."""
    if not sys.platform.startswith("linux"):
        return
    in_use = global_cblas()
    if os.environ.get(SHOW_FLAG) == "1":
        print(f"blas: {in_use or 'reference'}", file=sys.stderr)
    if "openblas" in in_use:
        return
    installed = next((path for path in OPENBLAS_PATHS if os.path.exists(path)), None)
    if installed and not os.environ.get(REEXEC_FLAG):
        preload = os.environ.get("LD_PRELOAD")
        env = {**os.environ, REEXEC_FLAG: "1", "LD_PRELOAD": installed + (f":{preload}" if preload else "")}
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, sys.orig_argv, env)
    print(SLOW_BLAS_WARNING, file=sys.stderr)
