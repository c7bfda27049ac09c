"""The CPU backend's BLAS on Linux: the fastest one installed, never the slow one silently.

    entry point main() -> ensure_fast_blas()
        not Linux, or a known BLAS already preloaded (a user's choice),
        or the one MLX_QWEN3ASR_BLAS names                                -> nothing to do
        MLX_QWEN3ASR_BLAS=name, else the first of PREFERENCE installed    -> re-execute this same command
                                                                             with it in LD_PRELOAD (once)
        otherwise                                                         -> one warning with the fix
    scripts/env.sh (run.sh, test.sh) -> `python mlx_qwen3asr/runtime/blas.py` -> the same choice as shell exports

The mlx[cpu] wheel for Linux bundles the reference BLAS: one clip took 50.8 s on it and 10.0 s
with OpenBLAS preloaded. Preloading is the only way to swap it, and a preload takes effect only
when a process starts, hence the re-exec (guarded by REEXEC_FLAG so it happens at most once).
Why MKL and OpenBLAS together on x86-64: MKL runs decoding's one-row products ~1.4-2x faster than
Debian's OpenBLAS 0.3.21, OpenBLAS the encoder's and the prefill's products of many rows ~1.2x
faster (docs/performance.md has the measurements). A process has one global cblas_sgemm, so a small
router (blas_router.c, compiled here once per version into the user's cache; it needs a C compiler)
takes that place and hands each product to one of them by its row count. Without a compiler: MKL.

`threads(n)` sets the preloaded BLAS's thread count for a while, behind the router both libraries'
(on the CPU the layers run on two streams, each with its share of the threads: runtime/two_streams.py).
"""

import ctypes
import hashlib
import os
import shutil
import site
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

OPENBLAS_PATHS = ("/usr/lib/x86_64-linux-gnu/libopenblas.so.0", "/usr/lib/aarch64-linux-gnu/libopenblas.so.0")
# The BLAS libraries a Linux process can preload, by name, with the environment each needs.
LIBRARIES = {
    "openblas": OPENBLAS_PATHS,
    # PyPI `mkl` (a Linux x86-64 dependency), in this environment or in the user's site
    "mkl": tuple(os.path.join(base, "lib", "libmkl_rt.so.3") for base in (sys.prefix, site.getuserbase())),
    "blis": ("/usr/lib/x86_64-linux-gnu/libblis.so.4", "/usr/lib/aarch64-linux-gnu/libblis.so.4"),
}
# "narrow+wide": blas_router.c in front of the narrow library sends products of many rows to the wide one
PREFERENCE = ("mkl+openblas", "mkl", "openblas")  # the first one installed is used
ROUTER_SOURCE = Path(__file__).with_name("blas_router.c")
ROUTER_WIDE_VARIABLE = "MLX_QWEN3ASR_WIDE_BLAS"  # the router's wide library
LIBRARY_ENV = {"mkl": {"MKL_THREADING_LAYER": "INTEL"}}  # libmkl_rt picks its threading at run time
# OpenBLAS (DYNAMIC_ARCH) picks its kernels by the CPU's family and model. On one it does not know it falls back
# to a pre-AVX2 kernel: Debian's 0.3.21 runs Prescott's SSE3 kernels on Xeons that report a bare "Intel Xeon
# Processor" (Sapphire Rapids VMs), 5x slower than with SkylakeX's (docs/performance.md). Then OPENBLAS_CORETYPE
# names the kernels the CPU's flags allow. A core OpenBLAS does know is left as it is.
CORETYPE_VARIABLE = "OPENBLAS_CORETYPE"
AVX2_CORES = ("Haswell", "SkylakeX", "Cooperlake", "SapphireRapids", "Zen", "Excavator")
CORE_FLAGS = (("SkylakeX", {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}), ("Haswell", {"avx2", "fma"}))
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
REEXEC_FLAG = "MLX_QWEN3ASR_BLAS_REEXEC"  # set in the re-executed process
CHOICE_VARIABLE = "MLX_QWEN3ASR_BLAS"  # the user's choice, a name in PREFERENCE or LIBRARIES (e.g. "mkl")
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
    """The name (in PREFERENCE or LIBRARIES) of the BLAS at `path`, or "" when it is none of them."""
    if os.path.basename(path).startswith(ROUTER_SOURCE.stem):
        return next(name for name in PREFERENCE if "+" in name)
    return next((n for n, paths in LIBRARIES.items() if any(os.path.basename(p) in path for p in paths)), "")


@cache  # the preloaded library cannot change while the process runs
def _thread_functions() -> tuple:
    """(set, get) of the preloaded BLAS's thread count, or (None, None) (reference BLAS, macOS). Behind
    the router: set both libraries' counts, get the narrow one's."""
    name = known_library(global_cblas())
    if not name:
        return None, None
    process = ctypes.CDLL(None)  # a preloaded library's symbols come first in the global scope
    setter, getter = (getattr(process, symbol) for symbol in THREAD_FUNCTIONS[name.split("+")[0]])
    setter.argtypes, setter.restype, getter.restype = [ctypes.c_int], None, ctypes.c_int
    if "+" not in name:
        return setter, getter
    set_wide = process.mlx_qwen3asr_wide_threads  # blas_router.c
    set_wide.argtypes, set_wide.restype = [ctypes.c_int], ctypes.c_int

    def set_both(n: int) -> None:
        setter(n)
        set_wide(n)

    return set_both, getter


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


def library_paths(name: str) -> list[str]:
    """What to preload for BLAS `name` (in PREFERENCE or LIBRARIES), in order; [] when this machine
    lacks it. For "narrow+wide": the router, then the narrow library (the wide one: ROUTER_WIDE_VARIABLE)."""
    if "+" not in name:
        return [path for path in LIBRARIES[name] if os.path.exists(path)][:1]
    narrow, wide = name.split("+")
    if not (library_paths(narrow) and library_paths(wide)):
        return []
    router = built_router()
    return [router, *library_paths(narrow)] if router else []


def installed_library(name: str) -> str:
    """The library that will hold cblas_sgemm once BLAS `name` is preloaded, or "" when it cannot be."""
    return next(iter(library_paths(name)), "")


def missing_help(name: str) -> str:
    """What BLAS `name` needs, for an error message."""
    if "+" in name:
        return f"needs {' and '.join(name.split('+'))}, and a C compiler (cc) to build {ROUTER_SOURCE.name}"
    return f"looked for {', '.join(LIBRARIES[name])}"


def chosen_library() -> str:
    """The name of the BLAS this machine should use: the user's CHOICE_VARIABLE, else the first of
    PREFERENCE installed, or "" when none is."""
    wanted = os.environ.get(CHOICE_VARIABLE, "")
    if not wanted:
        return next((name for name in PREFERENCE if installed_library(name)), "")
    names = list(dict.fromkeys([*PREFERENCE, *LIBRARIES]))
    if wanted not in names:
        raise SystemExit(f"{CHOICE_VARIABLE}={wanted!r} is no BLAS this knows: use one of {', '.join(names)}")
    if not installed_library(wanted):
        raise SystemExit(f"{CHOICE_VARIABLE}={wanted} is not available here ({missing_help(wanted)}): unset it")
    return wanted


@cache
def built_router() -> str:
    """The compiled blas_router.c in the user's cache (built on first use, named by a hash of its
    source), or "" when no C compiler can build it."""
    source = ROUTER_SOURCE.read_bytes()
    cache_dir = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mlx_qwen3asr"
    target = cache_dir / f"{ROUTER_SOURCE.stem}-{hashlib.sha256(source).hexdigest()[:12]}.so"
    if target.exists():
        return str(target)
    compiler = shutil.which(os.environ.get("CC", "cc"))
    if not compiler:
        return ""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.partial")
        command = [compiler, "-O2", "-shared", "-fPIC", "-o", str(partial), str(ROUTER_SOURCE), "-ldl"]
        built = subprocess.run(command, capture_output=True, timeout=120).returncode == 0
        if built:
            os.replace(partial, target)  # another process building it at the same time gets the same file
        return str(target) if built else ""
    except (OSError, subprocess.TimeoutExpired):
        return ""


def cpu_flags() -> set[str]:
    """The CPU's feature flags from /proc/cpuinfo (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return next((set(line.split(":", 1)[1].split()) for line in text.splitlines() if line.startswith("flags")), set())


@cache
def openblas_core(path: str) -> str:
    """The kernels OpenBLAS at `path` picks for this CPU by itself (e.g. "SkylakeX"), or "" when it cannot say.
    Asked in a child process: OpenBLAS picks once, when loaded, and this process may hold one loaded otherwise."""
    code = f"import ctypes; f = ctypes.CDLL({path!r}).openblas_get_corename; f.restype = ctypes.c_char_p; print(f().decode())"
    env = {k: v for k, v in os.environ.items() if k not in (CORETYPE_VARIABLE, "LD_PRELOAD")}
    try:
        run = subprocess.run(
            [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, env=env, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return run.stdout.strip() if run.returncode == 0 else ""


def openblas_coretype(core: str, flags: set[str]) -> str:
    """The OPENBLAS_CORETYPE to set when OpenBLAS fell back to kernels older than the CPU ("" to leave it)."""
    if not core or core in AVX2_CORES:
        return ""
    return next((name for name, needs in CORE_FLAGS if needs <= flags), "")


def preload_environment(name: str, base: dict) -> dict:
    """`base` with BLAS `name` preloaded first in LD_PRELOAD (any other BLAS there dropped, other
    preloads kept) and the variables it needs; "reference" preloads no BLAS."""
    known = {path for paths in LIBRARIES.values() for path in paths}
    others = [p for p in base.get("LD_PRELOAD", "").split(":") if p and p not in known and not known_library(p)]
    env = {k: v for k, v in base.items() if k not in ("LD_PRELOAD", ROUTER_WIDE_VARIABLE)}
    if name != "reference":
        paths = library_paths(name)
        if not paths:
            raise FileNotFoundError(f"BLAS {name!r} is not installed here ({missing_help(name)})")
        others[:0] = paths
        for part in name.split("+"):
            env.update(LIBRARY_ENV.get(part, {}))
        if "+" in name:
            env[ROUTER_WIDE_VARIABLE] = library_paths(name.split("+")[1])[0]
        if "openblas" in name.split("+") and CORETYPE_VARIABLE not in env:  # a user's own stands
            coretype = openblas_coretype(openblas_core(library_paths("openblas")[0]), cpu_flags())
            env.update({CORETYPE_VARIABLE: coretype} if coretype else {})
    return {**env, "LD_PRELOAD": ":".join(others)} if others else env


def ensure_fast_blas() -> None:
    """Call first thing in a command-line entry point (it may replace the process). Nothing to do off
    Linux, or on a GPU (the GPU path runs no product on the CPU's BLAS: runtime/device.py)."""
    if not sys.platform.startswith("linux"):
        return
    from .device import gpu_path  # here, not at the top: this file also runs alone, without MLX

    if gpu_path():
        return
    in_use = global_cblas()
    if os.environ.get(SHOW_FLAG) == "1":
        print(f"blas: {in_use or 'reference'}", file=sys.stderr)
    preloaded = known_library(in_use)
    if preloaded and os.environ.get(CHOICE_VARIABLE, "") in ("", preloaded):
        return  # one the user preloaded, or the one asked for
    name = chosen_library()
    if name and not os.environ.get(REEXEC_FLAG):
        env = {**preload_environment(name, dict(os.environ)), REEXEC_FLAG: "1"}
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, sys.orig_argv, env)
    if not preloaded:
        print(SLOW_BLAS_WARNING, file=sys.stderr)


def shell_exports() -> str:
    """The chosen BLAS's environment as `export` lines for scripts/env.sh (nothing when none is)."""
    name = chosen_library()
    if not name:
        print(SLOW_BLAS_WARNING, file=sys.stderr)
        return ""
    mine = {k: os.environ[k] for k in ("LD_PRELOAD", CORETYPE_VARIABLE) if k in os.environ}
    env = preload_environment(name, {"LD_PRELOAD": "", **mine})
    return "".join(f"export {key}='{value}'\n" for key, value in env.items())


if __name__ == "__main__":  # run as a file by scripts/env.sh: no package import, no MLX
    sys.stdout.write(shell_exports())
