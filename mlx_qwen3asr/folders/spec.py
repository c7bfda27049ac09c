"""What every worker of a folder run decodes with, as one frozen object: FolderSpec.

FolderSpec(model, options, dtype, aligner, diarizer, batch_size, vad)
  models given by name (a hub id or a folder) or loaded (mq.load), the rest as transcribe_batch takes them
-> .loaded(): every named model loaded once (in this process, or in each Ray worker) and checked for
   its task (a recogniser, a forced aligner, a diarizer), the options checked against the recogniser
   (DecodeOptions.check, once per run or worker); loaded ones are kept as they are
-> .named(): for Ray workers, which load their own: folders as absolute paths (the same path on every
   node), hub ids as they are; a loaded model or a VAD other than the energy rule is refused in one line
"""

import os
from dataclasses import dataclass, field, replace
from typing import Any, Optional, Union

from mlx.nn import Module

from ..families.recogniser import Recogniser
from ..families.registry import require_task
from ..loading.load import load
from ..options import DecodeOptions
from ..outputs.speakers import SpeakerDiarizer
from ..vad.detector import VoiceDetector
from .plan import PathLike

NAMES = (str, os.PathLike)  # a model given by name (hub id or folder), not loaded yet
FLAGS = {"model": "--model", "aligner": "--aligner", "diarizer": "--diarize"}  # how the CLI names them
TASKS = {"model": "transcribe", "aligner": "align", "diarizer": "diarize"}


@dataclass(frozen=True)
class FolderSpec:
    """model: a recogniser, by name or loaded; options: what every decode is asked; dtype: the models'
    dtype when loaded here (None: float16 on a GPU, float32 on the CPU; the diarizer keeps its own);
    aligner: times every word; diarizer: a speaker on every segment and word; batch_size: files and
    chunks decoded together (None: default_batch_size); vad: as in transcribe."""

    model: Union[PathLike, Recogniser]
    options: DecodeOptions = field(default_factory=DecodeOptions)
    dtype: Optional[str] = None
    aligner: Union[PathLike, Module, None] = None
    diarizer: Union[PathLike, SpeakerDiarizer, None] = None
    batch_size: Optional[int] = None
    vad: Optional[VoiceDetector] = None

    def loaded(self, flags: bool = False) -> "FolderSpec":
        """This spec with its named models loaded and each checked for its task (ValueError, one line,
        naming it as `model=` or, with `flags`, as the command line's flag and value), and its options
        checked against its model (OptionError): the folder road's one check, before any audio is read."""
        models = {role: self._loaded(role, flags) for role in TASKS}
        self.options.check(models["model"])
        return replace(self, **models)

    def _loaded(self, role: str, flags: bool) -> Any:
        value = getattr(self, role)
        if value is None:
            return None
        dtype = None if role == "diarizer" else self.dtype  # the diarizer runs in its own dtype
        model = load(value, dtype=dtype) if isinstance(value, NAMES) else value
        require_task(model, TASKS[role], f"{FLAGS[role]} {value}" if flags else role)
        return model

    def named(self) -> "FolderSpec":
        """This spec as workers elsewhere can load it: every model a name, folders as absolute paths."""
        if not all(isinstance(m, NAMES) for m in (self.model, self.aligner, self.diarizer) if m is not None):
            raise ValueError("with a Ray runner, name the models (a hub id, or a folder every node can read): "
                             "each worker loads them")  # fmt: skip
        if self.vad is not None and self.vad.name != "energy":
            raise ValueError("vad= is not available with a Ray runner yet: leave out one of them")
        names = {role: name_of(getattr(self, role)) for role in TASKS if getattr(self, role) is not None}
        return replace(self, **names)


def name_of(model: PathLike) -> str:
    """What each worker loads: a folder here as an absolute path (the same path on every node), else the hub id."""
    return os.path.abspath(model) if os.path.isdir(model) else os.fspath(model)
