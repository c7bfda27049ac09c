"""A writer of torch's zip checkpoint format (what `torch.save` writes), without torch.

    object of dicts, lists, strings, numbers and numpy arrays (+ Call / NewObject for the few class
    instances a checkpoint's metadata holds)
    -> <archive>/data.pkl: pickle protocol 2 emitted opcode by opcode, each array as
       torch._utils._rebuild_tensor_v2(BINPERSID ('storage', torch.<Kind>Storage, key, 'cpu', numel),
       0, shape, contiguous strides, False, OrderedDict())
    -> <archive>/data/<key> raw little-endian values, <archive>/version "3", <archive>/byteorder "little"
    -> a stored (uncompressed) zip, members aligned to 64 bytes like torch's writer

The opcodes are written by hand because Python's pickler would import `torch` to check each global.
"""

import struct
import zipfile
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import numpy as np

STORAGE_NAMES = {
    np.dtype(np.float32): "FloatStorage",
    np.dtype(np.float64): "DoubleStorage",
    np.dtype(np.int64): "LongStorage",
    np.dtype(np.int32): "IntStorage",
}
ALIGNMENT = 64


@dataclass(frozen=True)
class Call:
    """`module.name(*args)` when unpickled (how an Enum member is pickled)."""

    module: str
    name: str
    args: tuple = ()


@dataclass(frozen=True)
class NewObject:
    """`module.name.__new__()` then its `__dict__` set to state (how a plain dataclass instance is pickled)."""

    module: str
    name: str
    state: dict = field(default_factory=dict)


class _Writer:
    def __init__(self) -> None:
        self.out = bytearray(b"\x80\x02")  # PROTO 2
        self.storages: list[np.ndarray] = []

    def glob(self, module: str, name: str) -> None:
        self.out += b"c" + f"{module}\n{name}\n".encode()

    def tuple(self, items: tuple) -> None:
        self.out += b"("
        for item in items:
            self.save(item)
        self.out += b"t"

    def items(self, pairs) -> None:
        self.out += b"("
        for key, value in pairs:
            self.save(key)
            self.save(value)
        self.out += b"u"  # SETITEMS

    def tensor(self, array: np.ndarray) -> None:
        array = np.array(array, order="C")  # (np.ascontiguousarray would make a 0-d tensor 1-d)
        kind = STORAGE_NAMES[array.dtype]
        key = str(len(self.storages))
        self.storages.append(array)
        self.glob("torch._utils", "_rebuild_tensor_v2")
        self.out += b"(("  # the call's arguments, then the storage's persistent id
        self.save("storage")
        self.glob("torch", kind)
        for part in (key, "cpu", int(array.size)):
            self.save(part)
        self.out += b"tQ"  # TUPLE, BINPERSID
        strides = tuple(s // array.itemsize for s in array.strides)
        for part in (0, tuple(array.shape), strides, False):
            self.save(part)
        self.save(OrderedDict())
        self.out += b"tR"  # TUPLE, REDUCE

    def save(self, obj: Any) -> None:  # noqa: C901 - one branch per pickled kind
        if obj is None:
            self.out += b"N"
        elif obj is True or obj is False:
            self.out += b"\x88" if obj else b"\x89"
        elif isinstance(obj, int):
            self.out += b"J" + struct.pack("<i", obj)
        elif isinstance(obj, float):
            self.out += b"G" + struct.pack(">d", obj)
        elif isinstance(obj, str):
            data = obj.encode()
            self.out += b"X" + struct.pack("<I", len(data)) + data
        elif isinstance(obj, np.ndarray):
            self.tensor(obj)
        elif isinstance(obj, tuple):
            self.tuple(obj)
        elif isinstance(obj, list):
            self.out += b"]("
            for item in obj:
                self.save(item)
            self.out += b"e"  # APPENDS
        elif isinstance(obj, OrderedDict):
            self.glob("collections", "OrderedDict")
            self.out += b")R"  # OrderedDict()
            if obj:
                self.items(obj.items())
        elif isinstance(obj, dict):
            self.out += b"}"
            if obj:
                self.items(obj.items())
        elif isinstance(obj, Call):
            self.glob(obj.module, obj.name)
            self.tuple(obj.args)
            self.out += b"R"
        elif isinstance(obj, NewObject):
            self.glob(obj.module, obj.name)
            self.out += b")\x81"  # EMPTY_TUPLE, NEWOBJ
            self.save(obj.state)
            self.out += b"b"  # BUILD
        else:
            raise TypeError(f"cannot write {type(obj).__name__} into a torch checkpoint")


def _write_member(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    """A stored member whose data starts on a multiple of ALIGNMENT (padding in the local header's extra)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    header = 30 + len(name.encode())
    offset = archive.fp.tell() + header
    pad = (-(offset + 4)) % ALIGNMENT
    info.extra = struct.pack("<HH", 0x1234, pad) + b"Z" * pad  # an extra field torch's writer also uses
    archive.writestr(info, data, compress_type=zipfile.ZIP_STORED)


def write_torch_checkpoint(obj: Any, path: Union[str, Path], archive_name: str = "archive") -> None:
    """Write obj as torch.save would (tensors given as numpy arrays); torch.load reads it back."""
    writer = _Writer()
    writer.save(obj)
    writer.out += b"."  # STOP
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        _write_member(archive, f"{archive_name}/data.pkl", bytes(writer.out))
        _write_member(archive, f"{archive_name}/byteorder", b"little")
        for key, array in enumerate(writer.storages):
            _write_member(archive, f"{archive_name}/data/{key}", array.astype(array.dtype.newbyteorder("<")).tobytes())
        _write_member(archive, f"{archive_name}/version", b"3\n")
