"""Writing a model folder: sharded safetensors as tensors arrive, published atomically.

    tensors (any order) -> current shard until the next tensor would pass max_shard_bytes
    -> mx.save_safetensors per full shard -> finish(): one shard is `model.safetensors`; several
       are `model-0000i-of-0000N.safetensors` plus `model.safetensors.index.json` (Hugging Face's
       names, so `load` and other tools read them)

Shard files get their final names in finish(), once their count is known. Everything is written
in `staging_folder`: a hidden folder next to the target, renamed onto it only when complete and
deleted on any failure (an exception, Ctrl-C), so a half-written model never appears. A conversion
killed outright (SIGKILL, power loss) cannot delete its folder: the staging folder's name holds the
converting process's id, and the next conversion into the same parent removes folders whose process
is gone, or that are older than STALE_SECONDS whatever their name says.
"""

import json
import os
import re
import secrets
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

import mlx.core as mx

STALE_SECONDS = 24 * 3600  # no conversion runs this long; a recycled process id cannot keep a folder forever
_STAGING = re.compile(r"^\.(?P<name>.+)\.(?:partial|old)-(?:(?P<pid>\d+)-)?[^.]+$")


class ShardWriter:
    def __init__(self, folder: Path, max_shard_bytes: int, on_write: Optional[Callable[[int], None]] = None):
        self.folder = Path(folder)
        self.max_shard_bytes = max_shard_bytes
        self.on_write = on_write or (lambda nbytes: None)
        self.current: dict[str, mx.array] = {}
        self.current_bytes = 0
        self.files: list[Path] = []
        self.weight_map: dict[str, int] = {}  # tensor name -> shard number
        self.total_bytes = 0

    def add(self, tensors: dict[str, mx.array]) -> None:
        """Queue tensors; a full shard is written (and its memory released) before it would overflow."""
        for name, value in tensors.items():
            if self.current and self.current_bytes + value.nbytes > self.max_shard_bytes:
                self._flush()
            self.current[name] = value
            self.current_bytes += value.nbytes
            self.weight_map[name] = len(self.files)

    def _flush(self) -> None:
        path = self.folder / f"shard-{len(self.files):05d}.safetensors"
        try:
            mx.save_safetensors(str(path), self.current, metadata={"format": "mlx"})
        except RuntimeError as e:  # MLX reports a failed write as "[write] Unable to write N bytes to file."
            raise OSError(
                f"Cannot write {path} ({e}): disk full? Free some space or choose an output folder on another disk"
            ) from e
        self.files.append(path)
        self.total_bytes += self.current_bytes
        self.on_write(self.current_bytes)
        self.current, self.current_bytes = {}, 0

    def finish(self) -> int:
        """Write the last shard, name the files, write the index when sharded; returns total tensor bytes."""
        if self.current or not self.files:
            self._flush()
        if len(self.files) == 1:
            self.files[0].rename(self.folder / "model.safetensors")
            return self.total_bytes
        n = len(self.files)
        names = [f"model-{i + 1:05d}-of-{n:05d}.safetensors" for i in range(n)]
        for path, name in zip(self.files, names):
            path.rename(self.folder / name)
        index = {
            "metadata": {"total_size": self.total_bytes},
            "weight_map": {k: names[i] for k, i in sorted(self.weight_map.items())},
        }
        (self.folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")
        return self.total_bytes


def new_hidden_folder(out_dir: Path, kind: str) -> Path:
    """`.NAME.KIND-PID-RANDOM` beside out_dir, with the permissions of any folder the user creates
    (mkdir honours the umask; tempfile.mkdtemp would make it 0700, and the output with it)."""
    folder = out_dir.parent / f".{out_dir.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"
    folder.mkdir()
    return folder


def remove_stale_folders(out_dir: Path, now: Optional[float] = None) -> list[Path]:
    """Delete hidden staging folders of out_dir left by conversions that were killed; returns them."""
    now = time.time() if now is None else now
    removed = []
    for folder in out_dir.parent.glob(f".{out_dir.name}.*-*"):
        match = _STAGING.match(folder.name)
        if not match or match["name"] != out_dir.name or not folder.is_dir():
            continue
        young = now - folder.stat().st_mtime < STALE_SECONDS
        if young and (match["pid"] is None or _process_alive(int(match["pid"]))):
            continue  # a conversion running now (or an older name without a process id: only age tells)
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


@contextmanager
def staging_folder(out_dir: Path, force: bool) -> Iterator[Path]:
    """A fresh hidden folder next to out_dir; renamed onto out_dir on success, deleted on any failure."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_folders(out_dir)
    staging = new_hidden_folder(out_dir, "partial")
    try:
        yield staging
        _publish(staging, out_dir, force)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _publish(staging: Path, out_dir: Path, force: bool) -> None:
    """Rename staging onto out_dir; an existing out_dir (force) is moved aside first, then deleted."""
    if not out_dir.exists():
        os.replace(staging, out_dir)
        return
    if not force:
        raise FileExistsError(f"{out_dir} appeared during the conversion: pass --force to replace it")
    old = new_hidden_folder(out_dir, "old")
    os.replace(out_dir, old / "model")
    try:
        os.replace(staging, out_dir)
    except OSError:
        os.replace(old / "model", out_dir)  # put the previous output back
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)
