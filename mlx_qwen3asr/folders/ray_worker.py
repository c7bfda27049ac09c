"""The worker side of a Ray run (ray_runner.py): the actor that holds the spec's models and decodes the
groups of files the driver sends it, with decode.decode_files (the same batched engine as one machine)."""

import platform
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import mlx.core as mx

from ..options import OptionError
from ..runtime import blas
from .decode import Decoded, decode_files
from .plan import one_line
from .spec import FolderSpec


class FolderWorker:
    """The worker (made a Ray actor in start_workers): the models loaded once, groups decoded on demand."""

    def __init__(self, spec: FolderSpec, threads: int):
        self.threads, self.error, self.spec, self.refused = threads, "", spec, ""
        try:
            self.spec = spec.loaded()
        except OptionError as e:  # options the model cannot take (spec.loaded checks them): not a node's fault
            self.error, self.refused = one_line(e), e.option
        except (FileNotFoundError, ValueError, MemoryError, OSError) as e:
            self.error = one_line(e)  # reported by describe(), not an actor that dies at birth

    def describe(self) -> dict:
        library = blas.known_library(blas.global_cblas()) or ("reference" if sys.platform == "linux" else "")
        node, cpu = platform.node(), mx.default_device() == mx.cpu
        return {"node": node, "error": self.error, "refused_option": self.refused, "blas": library, "cpu": cpu}

    def decode(self, group: list[tuple[str, bytes]]) -> list[Decoded]:
        """A Decoded for each (file name, file bytes), its index the file's place in `group`."""
        if self.error:
            return [
                Decoded(i, error=f"{platform.node()} cannot load the model: {self.error}") for i in range(len(group))
            ]
        with tempfile.TemporaryDirectory(prefix="mlx-qwen3asr-") as folder:
            paths = [Path(folder, str(i), Path(name).name) for i, (name, _) in enumerate(group)]
            for path, (_, data) in zip(paths, group):
                path.parent.mkdir()
                path.write_bytes(data)
            with blas.threads(self.threads):
                decoded = list(decode_files(paths, self.spec))
        # a reason names the file as the driver knows it, not this worker's temporary copy
        return [replace(d, error=d.error.replace(str(paths[d.index]), group[d.index][0])) for d in decoded]
