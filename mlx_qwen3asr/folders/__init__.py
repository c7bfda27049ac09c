"""Folders of audio in, transcripts out: transcribe_files, the spec every worker decodes with, the runners.

transcribe_files(inputs, FolderSpec(model, ...), out_dir, ..., runner=LocalRunner() | RayRunner(...))   files.py
  plan.py: inputs -> PlannedFile(source, outputs)      spec.py: FolderSpec (models, options, sizes)
  runner.py: LocalRunner, the Runner interface          decode.py: decode_files -> Decoded
  ray_runner.py, ray_dispatch.py, ray_worker.py, ray_reaper.py: the same on a Ray cluster
"""

from .decode import Decoded, decode_files
from .files import FileOutcome, Summary, transcribe_files
from .plan import InputError, PlannedFile
from .ray_runner import RayRunner
from .runner import LocalRunner, Runner
from .spec import FolderSpec

__all__ = [
    "Decoded",
    "FileOutcome",
    "FolderSpec",
    "InputError",
    "LocalRunner",
    "PlannedFile",
    "RayRunner",
    "Runner",
    "Summary",
    "decode_files",
    "transcribe_files",
]
