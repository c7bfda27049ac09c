"""pyannote's checkpoints (pytorch_model.bin), read by the families' torch reader (families/torch_checkpoint.py)
with stand-ins for the three pyannote.audio classes their metadata holds: Problem and Resolution are Enums
pickled as a call with their value, Specifications a dataclass pickled as NEWOBJ + BUILD; they become plain
stand-ins."""

from pathlib import Path
from typing import Any, Union

import numpy as np

from ..torch_checkpoint import read_torch_checkpoint as read_torch_zip

PYANNOTE_TASK = "pyannote.audio.core.task"


class Specifications(dict):
    """Stand-in for pyannote.audio's Specifications dataclass: its fields as a dict."""

    def __setstate__(self, state: dict) -> None:
        self.update(state)


def _enum(name: str):
    return lambda value: (name, value)  # Problem(1) -> ("Problem", 1)


STAND_INS = {
    (PYANNOTE_TASK, "Specifications"): Specifications,
    (PYANNOTE_TASK, "Problem"): _enum("Problem"),
    (PYANNOTE_TASK, "Resolution"): _enum("Resolution"),
}


def read_torch_checkpoint(path: Union[str, Path]) -> Any:
    """A pyannote torch checkpoint -> its pickled object, tensors as numpy arrays (no torch; nothing executed)."""
    return read_torch_zip(path, STAND_INS)


def state_dict(path: Union[str, Path]) -> dict[str, np.ndarray]:
    """The `state_dict` of a Lightning-style checkpoint, as name -> numpy array."""
    checkpoint = read_torch_checkpoint(path)
    if not isinstance(checkpoint, dict) or not isinstance(checkpoint.get("state_dict"), dict):
        raise ValueError(f"{path} has no state_dict: pass the folder of pyannote's official release")
    return dict(checkpoint["state_dict"])
