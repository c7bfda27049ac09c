"""How much memory this process may still take, so that work too big for it is refused in one line first.

    $MLX_QWEN3ASR_AVAILABLE_MEMORY (an override: tests, or to skip the check)
    else the least of:  free RAM (MemAvailable on Linux; physical memory elsewhere)
                        the memory cgroup's limit minus its use, for this cgroup and each above it
                        (v2 memory.max - memory.current, v1 memory.limit_in_bytes - memory.usage_in_bytes,
                        page cache that can be dropped counted as free)
                        the address-space limit (RLIMIT_AS, `ulimit -v`) minus the address space in use
                        and what the threads will still reserve (ADDRESS_SPACE_RESERVE)

MLX cannot recover from a failed allocation: the process dies with SIGSEGV or SIGABRT and no message,
so the check must come before the work. A leaf module: stdlib only.
"""

import os
import resource
from pathlib import Path
from typing import NamedTuple, Optional

AVAILABLE_MEMORY_ENV = "MLX_QWEN3ASR_AVAILABLE_MEMORY"
CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")
NO_LIMIT = 2**60  # cgroup v1 writes "no limit" as a number near 2**63
# Address space that threads reserve without using it, beyond the tensors and decoding's own memory
# (load.LOAD_OVERHEAD): measured on Linux x86-64 with 2 cores, a whole run of the tiny test model grows
# the address space by 1.26 GB beyond its tensors: a 64 MiB malloc arena and an 8 MiB stack per thread
# (about 3 threads per core: BLAS, MLX, the tokenizer) and the BLAS libraries' buffers (384 MB).
ADDRESS_SPACE_RESERVE = (512 * 2**20, 256 * 2**20)  # fixed, per CPU core


class Headroom(NamedTuple):
    bytes: int
    limit: str  # what bounds it, as said to the user ("" for free RAM)


def free_ram() -> int:
    """MemAvailable on Linux, else physical memory (macOS: unified memory, shared by CPU and GPU; the
    system compresses and pages the rest)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass  # not Linux
    return physical_memory()


def physical_memory() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _read_int(file: Path) -> Optional[int]:
    """The number in a cgroup file; None for "max", a missing file or v1's "no limit"."""
    try:
        text = file.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and int(text) < NO_LIMIT else None


def _stat(file: Path, key: str) -> int:
    try:
        for line in file.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


# Per cgroup version: the limit's file, the usage's file, memory.stat's key for droppable page cache.
CGROUP_FILES = {
    2: ("memory.max", "memory.current", "inactive_file"),
    1: ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"),
}


def cgroup_folders(proc_cgroup: Path = PROC_CGROUP, root: Path = CGROUP_ROOT) -> list[tuple[Path, int]]:
    """This process's memory cgroup folders, its own first, then each above it up to the mount's root,
    with the cgroup version. In a container the path in /proc may name the host's hierarchy while the
    container sees its own cgroup at the root: then the root alone."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return []  # not Linux
    folders = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            version, base = 2, root if (root / "cgroup.controllers").exists() else root / "unified"
        elif "memory" in controllers.split(","):
            version, base = 1, root / "memory"
        else:
            continue
        folder = base / path.lstrip("/")
        folder = folder if folder.is_dir() else base
        folders += [(f, version) for f in (folder, *folder.parents) if f == base or base in f.parents]
    return folders


def cgroup_headroom(proc_cgroup: Path = PROC_CGROUP, root: Path = CGROUP_ROOT) -> Optional[int]:
    """Bytes the memory cgroups above this process can still charge before the kernel's OOM killer
    acts (the least over the hierarchy), None without a limit."""
    headrooms = []
    for folder, version in cgroup_folders(proc_cgroup, root):
        limit_file, usage_file, cache_key = CGROUP_FILES[version]
        limit, usage = _read_int(folder / limit_file), _read_int(folder / usage_file)
        if limit is not None:
            headrooms.append(max(0, limit - (usage or 0) + _stat(folder / "memory.stat", cache_key)))
    return min(headrooms, default=None)


def cgroup_limit(proc_cgroup: Path = PROC_CGROUP, root: Path = CGROUP_ROOT) -> Optional[int]:
    """The smallest memory limit of this process's cgroups, None without one."""
    limits = [_read_int(f / CGROUP_FILES[v][0]) for f, v in cgroup_folders(proc_cgroup, root)]
    return min((limit for limit in limits if limit is not None), default=None)


def address_space_in_use() -> int:
    """VmSize: the address space this process has mapped (0 where /proc is missing)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def address_space_limit() -> Optional[int]:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def thread_reserve() -> int:
    fixed, per_core = ADDRESS_SPACE_RESERVE
    return fixed + per_core * (os.cpu_count() or 1)


def address_space_headroom() -> Optional[int]:
    """Address space left under RLIMIT_AS once the threads have reserved theirs; None without a limit."""
    limit = address_space_limit()
    return None if limit is None else max(0, limit - address_space_in_use() - thread_reserve())


def headroom() -> Headroom:
    """Bytes this process can still allocate, and the limit that bounds them."""
    override = os.environ.get(AVAILABLE_MEMORY_ENV)
    if override:
        return Headroom(int(float(override)), f"${AVAILABLE_MEMORY_ENV}")
    candidates = [Headroom(free_ram(), "")]
    cgroup = cgroup_headroom()
    if cgroup is not None:
        candidates.append(Headroom(cgroup, f"under this process's cgroup memory limit ({cgroup_limit() / 1e9:.1f} GB)"))
    address_space = address_space_headroom()
    if address_space is not None:
        candidates.append(
            Headroom(
                address_space,
                f"under this process's address-space limit (ulimit -v {address_space_limit() // 1024}: "
                f"{address_space_in_use() / 1e9:.1f} GB is mapped and {thread_reserve() / 1e9:.1f} GB is kept "
                "for threads)",
            )
        )
    return min(candidates, key=lambda c: c.bytes)


def available_memory() -> int:
    """Bytes this process can still allocate (see the module's docstring)."""
    return headroom().bytes


def memory_size() -> int:
    """All the memory this process may use: physical RAM, or less under a cgroup or address-space limit."""
    limits = [physical_memory(), cgroup_limit(), address_space_limit()]
    return min(limit for limit in limits if limit is not None)


def ensure_memory(needed: int, what: str) -> None:
    """Refuse (one line, with advice) before MLX would fail to allocate."""
    available, limit = headroom()
    if needed > available:
        where = f" {limit}" if limit and not limit.startswith("$") else ""
        fix = "Raise the limit" if where else "Close other programs"
        raise MemoryError(
            f"Not enough memory to {what}: it needs about {needed / 1e9:.1f} GB and {available / 1e9:.1f} GB "
            f"is available{where}. {fix}, or use a smaller model (Qwen/Qwen3-ASR-0.6B), float16 "
            "instead of float32 (--dtype float16), or a 4-bit conversion (mlx-qwen3asr-convert)"
        )
