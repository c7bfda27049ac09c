"""The worker side of files on a Ray cluster (cluster.py): the actor that holds the model and decodes the
groups of files the driver sends it, with files.decode_files (the same batched engine as one machine)."""

import platform
import sys
import tempfile
from pathlib import Path
from typing import Optional

import mlx.core as mx

from . import blas
from .align.aligner import check_aligner
from .files import Outcome, decode_files
from .load import load
from .options import DecodeOptions
from .plan import one_line


class Transcriber:
    """The worker (made a Ray actor in start_workers): the model loaded once, groups decoded on demand."""

    def __init__(self, model: str, dtype: Optional[str], aligner: Optional[str], threads: int):
        self.threads, self.error, self.model, self.aligner = threads, "", None, None
        try:
            self.model = load(model, dtype=dtype)
            if aligner:
                self.aligner = load(aligner, dtype=dtype)
                check_aligner(self.aligner)
        except (FileNotFoundError, ValueError, MemoryError, OSError) as e:
            self.error = one_line(e)  # reported by describe(), not an actor that dies at birth

    def describe(self) -> dict:
        library = blas.known_library(blas.global_cblas()) or ("reference" if sys.platform == "linux" else "")
        return {"node": platform.node(), "error": self.error, "blas": library, "cpu": mx.default_device() == mx.cpu}

    def decode(
        self, group: list[tuple[str, bytes]], options: DecodeOptions, batch_size: Optional[int]
    ) -> list[tuple[int, Outcome, float]]:
        """(index in group, Transcription or reason, seconds) for each (file name, file bytes)."""
        if self.error:
            return [(i, f"{platform.node()} cannot load the model: {self.error}", 0.0) for i in range(len(group))]
        with tempfile.TemporaryDirectory(prefix="mlx-qwen3asr-") as folder:
            paths = [Path(folder, str(i), Path(name).name) for i, (name, _) in enumerate(group)]
            for path, (_, data) in zip(paths, group):
                path.parent.mkdir()
                path.write_bytes(data)
            with blas.threads(self.threads):
                decoded = list(
                    decode_files(paths, self.model, options=options, batch_size=batch_size, aligner=self.aligner)
                )
        # a reason names the file as the driver knows it, not this worker's temporary copy
        return [(i, o.replace(str(paths[i]), group[i][0]) if isinstance(o, str) else o, s) for i, o, s in decoded]
