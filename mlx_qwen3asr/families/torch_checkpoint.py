"""A restricted reader of torch's zip checkpoints (`torch.save`), without torch: what the families whose
releases are torch files read them with (pyannote's diarizer, SenseVoiceSmall's model.pt).

    model.pt / pytorch_model.bin (zip) -> <archive>/data.pkl: a pickle whose tensors are
       torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks), each storage a
       persistent id ('storage', torch.FloatStorage, key, location, numel) -> <archive>/data/<key> (raw
       little-endian values)
    -> plain Python values with numpy arrays for tensors

The unpickler resolves only the tensor and storage rebuilders, OrderedDict, and the stand-ins a caller
names for its release's own metadata classes (`stand_ins`: (module, name) -> a plain replacement). Any
other global is refused, so a checkpoint can never run code while it is read.
"""

import io
import pickle
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Union

import numpy as np

STORAGE_DTYPES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "HalfStorage": np.float16,
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "ShortStorage": np.int16,
    "CharStorage": np.int8,
    "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}


def _rebuild_tensor(storage: np.ndarray, offset: int, size: tuple, stride: tuple, *_) -> np.ndarray:
    if not size:
        return storage[offset].copy()
    itemsize = storage.itemsize
    view = np.lib.stride_tricks.as_strided(
        storage[offset:], shape=tuple(size), strides=tuple(s * itemsize for s in stride)
    )
    return np.ascontiguousarray(view)


def _rebuild_parameter(data: np.ndarray, requires_grad: bool, hooks: Any, *_) -> np.ndarray:
    return data


TENSOR_GLOBALS = {
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("collections", "OrderedDict"): OrderedDict,
    **{("torch", name): name for name in STORAGE_DTYPES},
}


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, archive: zipfile.ZipFile, prefix: str, source: Path, allowed: Mapping):
        super().__init__(io.BytesIO(data))
        self.archive, self.prefix, self.source, self.allowed = archive, prefix, source, allowed

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in self.allowed:
            raise pickle.UnpicklingError(
                f"{self.source} holds {module}.{name}, which a checkpoint of tensors and plain values never "
                "needs: refusing to read it (use the official file)"
            )
        return self.allowed[(module, name)]

    def persistent_load(self, pid: Any) -> np.ndarray:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and pid[1] in STORAGE_DTYPES):
            raise pickle.UnpicklingError(f"{self.source}: unknown persistent id {pid!r}")
        _, kind, key, _location, numel = pid
        raw = self.archive.read(f"{self.prefix}data/{key}")
        return np.frombuffer(raw, dtype=np.dtype(STORAGE_DTYPES[kind]).newbyteorder("<"), count=numel)


def read_torch_checkpoint(path: Union[str, Path], stand_ins: Mapping[tuple[str, str], Callable] = {}) -> Any:
    """A torch zip checkpoint -> its pickled object, tensors as numpy arrays (no torch; nothing executed).
    stand_ins: (module, name) -> what a release's own metadata class becomes (pyannote's Specifications)."""
    path = Path(path)
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is not a torch zip checkpoint: re-download the official file")
    with zipfile.ZipFile(path) as archive:
        pickles = [n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(pickles) != 1:
            raise ValueError(f"{path} has no <archive>/data.pkl: re-download the official file")
        prefix = pickles[0][: -len("data.pkl")]
        byteorder = f"{prefix}byteorder"
        if byteorder in archive.namelist() and archive.read(byteorder).strip() != b"little":
            raise ValueError(f"{path} was saved big-endian, which this reader does not support")
        allowed = {**TENSOR_GLOBALS, **stand_ins}
        return _Unpickler(archive.read(pickles[0]), archive, prefix, path, allowed).load()
