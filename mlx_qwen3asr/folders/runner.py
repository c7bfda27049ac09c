"""Where a folder run decodes: a runner behind one small interface (transcribe_files(..., runner=...)).

    runner.check(spec)                -> ValueError, before any work, for a spec it cannot run
    runner.run(files, spec, writer)   -> writer.models_ready() once the models are loaded, then
                                         writer.record(file, Decoded) once for every file, in any order

LocalRunner decodes in this process; RayRunner (ray_runner.py) on Ray workers, each loading the spec's
models itself. Only the caller's writer writes outputs, whichever runner decodes.
"""

from collections.abc import Sequence
from typing import Protocol

from .decode import Decoded, decode_files
from .plan import PlannedFile
from .spec import FolderSpec


class Writer(Protocol):
    """What a runner reports to (files.OutputWriter; the CLI's printer)."""

    def models_ready(self) -> None: ...

    def record(self, file: PlannedFile, decoded: Decoded) -> None: ...


class Runner(Protocol):
    def check(self, spec: FolderSpec) -> None: ...

    def run(self, files: Sequence[PlannedFile], spec: FolderSpec, writer: Writer) -> None: ...


class LocalRunner:
    """This process: the models loaded once, every file decoded in order."""

    def check(self, spec: FolderSpec) -> None:
        """Any spec runs here (models by name or loaded)."""

    def run(self, files: Sequence[PlannedFile], spec: FolderSpec, writer: Writer) -> None:
        spec = spec.loaded()
        writer.models_ready()
        for decoded in decode_files([file.source for file in files], spec):
            writer.record(files[decoded.index], decoded)
