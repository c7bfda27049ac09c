"""Re-extract the Silero VAD v6 16 kHz weights that mlx_qwen3asr/families/silero ships, from the
silero-vad wheel, without torch; check the sha256 of every tensor; write the shipped file.

    pip download silero-vad==6.2.3 --no-deps -d /tmp/silero      # the wheel, 6.9 MB
    python -m scripts.extract_silero_vad /tmp/silero/silero_vad-6.2.3-py3-none-any.whl

    wheel (zip) -> silero_vad/data/silero_vad.jit (a TorchScript zip: the model `load_silero_vad()` runs)
      -> <archive>/data.pkl: a pickle of the module tree; each tensor is a persistent reference
         ("storage", <storage type>, key, device, numel) to raw little-endian bytes in <archive>/data/<key>,
         rebuilt by torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)
      -> a restricted unpickler (it can build numpy arrays, OrderedDicts and plain stand-ins for the
         TorchScript module classes, nothing else) -> the `_model.*` tensors (the 16 kHz model)
      -> sha256 of each tensor's C-order float32 bytes == SHA256 below -> weights.safetensors
         (names without `_model.`, torch layout; the loader transposes the convolutions)

The wheel's own `silero_vad_16k.safetensors` is a different checkpoint (probabilities up to 0.85 away
from `load_silero_vad()`): it is deliberately not used.
"""

import argparse
import hashlib
import io
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

WHEEL_SHA256 = "7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8"
JIT_SHA256 = (
    "e1122837f4154c511485fe0b9c64455f7b929c96fbb8d79fbdb336383ebd3720"  # TorchScript archive VADr_v6_10_25_noths_re
)
JIT_MEMBER = "silero_vad/data/silero_vad.jit"
LICENSE_MEMBER = "silero_vad-6.2.3.dist-info/licenses/LICENSE"
PREFIX = "_model."  # the 16 kHz model; `_model_8k.` is the 8 kHz one, not shipped
OUT_DIR = Path(__file__).resolve().parent.parent / "mlx_qwen3asr" / "families" / "silero"

# sha256 of each tensor's C-order little-endian float32 bytes, as read from the .jit
SHA256 = {
    "stft.forward_basis_buffer": "3b69ddad309d34245d2960d93be421e5a99360c26e200e7efb309da25b6eecd9",
    "encoder.0.reparam_conv.weight": "e493f78d769da4767063184ec6fc30063e6d2b60d3023289980c4b4081275262",
    "encoder.0.reparam_conv.bias": "28af8d67b0d3c5ef2697b4d2d2a3966db951548099769dcd26209d49670cb47e",
    "encoder.1.reparam_conv.weight": "dde187be6eddb36eb37ae122b5d1755a6511778c578e2fc56bf23ba325c2ab5a",
    "encoder.1.reparam_conv.bias": "82bfd0614cadac179bf25f3d6a9e1031500709a09aac3a5be4b49bcbcbb9c36d",
    "encoder.2.reparam_conv.weight": "518ea6a5d3a72db643a6462bd374c3aec406d9d978314023d704e0b7a5470832",
    "encoder.2.reparam_conv.bias": "0865dacfe50a12cdd53b2fce292aa03a15b71118e81252404f9d99deb977555e",
    "encoder.3.reparam_conv.weight": "49dab044981cee046c0ef015456fa03cee898b75e800da9d4df3fb3b933609c4",
    "encoder.3.reparam_conv.bias": "f2de1ebf2b43240a1c9557264accf8fb66c352a85db3971b12874af8cd55d27e",
    "decoder.rnn.weight_ih": "f7d6d5585cccf1a510e2907f6f9475337bdb93c1e1edcd560a175d3574c4ff2d",
    "decoder.rnn.weight_hh": "0abcd16bb107ed57e44a57d812e6b55852f1d36cb9017e6d1d7845d4e1d66ab2",
    "decoder.rnn.bias_ih": "746fbcc00bc7bbe586c688d13b0ec2df8dca1c948c18e3fec1182e8aaa69435c",
    "decoder.rnn.bias_hh": "706e548f6da853804e984dcd410c70c7a9fc00f22d79178a2d1da67b4661b529",
    "decoder.decoder.2.weight": "b76c4ea9c597f211bf7899ee8fb0f542a25003137b51a1c799887de571a0e7a0",
    "decoder.decoder.2.bias": "544d9b7ad69153374a902584a96f6a8b65af300157b9502bdfb5432bfc2f073a",
}
SOURCE = """# Silero VAD v6 (16 kHz) weights: source, licence, checksums

`weights.safetensors` holds the 16 kHz model of Silero VAD v6 (TorchScript archive `VADr_v6_10_25_noths_re`)
exactly as `silero_vad.load_silero_vad()` runs it, float32, names without the `.jit`'s `_model.` prefix, convolutions
in torch layout [out, in, kernel]. Licence: MIT, Copyright (c) 2020-present Silero Team (`LICENSE`, from the wheel).
Written by `python -m scripts.extract_silero_vad silero_vad-6.2.3-py3-none-any.whl` (no torch needed).

- wheel `silero_vad-6.2.3-py3-none-any.whl` (`pip download silero-vad==6.2.3 --no-deps`): sha256 `{wheel}`
- `{member}` inside it: sha256 `{jit}`
- `weights.safetensors`: sha256 `{file}`

| tensor | shape | sha256 of its C-order little-endian float32 bytes |
| --- | --- | --- |
{rows}
"""
_LISTS = ("build_intlist", "build_doublelist", "build_boollist", "build_tensorlist")
_DTYPES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "LongStorage": np.int64, "IntStorage": np.int32}


class _Module:
    """Stand-in for a TorchScript module class: keeps the pickled attribute dict."""

    def __setstate__(self, state: dict) -> None:
        self.state = state


class _JitUnpickler(pickle.Unpickler):
    def __init__(self, data: bytes, archive: zipfile.ZipFile, root: str) -> None:
        super().__init__(io.BytesIO(data))
        self.archive, self.root = archive, root

    def persistent_load(self, pid: tuple) -> np.ndarray:
        kind, storage_type, key, _device, numel = pid
        assert kind == "storage", pid
        raw = self.archive.read(f"{self.root}/data/{key}")
        return np.frombuffer(raw, dtype=np.dtype(storage_type).newbyteorder("<"), count=numel)

    def find_class(self, module: str, name: str):
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor
        if module == "torch" and name in _DTYPES:
            return _DTYPES[name]
        if module == "collections" and name == "OrderedDict":
            return OrderedDict
        if module == "torch.jit._pickle" and name in _LISTS:
            return list  # build_intlist([...]) etc.: TorchScript's typed lists
        if module.startswith("__torch__."):
            return type(name, (_Module,), {})
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from the .jit")


def _rebuild_tensor(storage: np.ndarray, offset: int, size: tuple, stride: tuple, *_) -> np.ndarray:
    itemsize = storage.itemsize
    view = np.lib.stride_tricks.as_strided(
        storage[offset:], shape=size, strides=tuple(s * itemsize for s in stride), writeable=False
    )
    return np.ascontiguousarray(view)


def _tensors(node: object, name: str = "") -> dict:
    """Every array in the module tree, by its dotted attribute path."""
    if isinstance(node, np.ndarray):
        return {name: node}
    children = node.state if isinstance(node, _Module) else node if isinstance(node, dict) else {}
    found = {}
    for key, value in children.items():
        found.update(_tensors(value, f"{name}.{key}" if name else str(key)))
    return found


def read_jit(jit: bytes) -> dict:
    """The 16 kHz model's tensors from the .jit's bytes, names without `_model.`."""
    with zipfile.ZipFile(io.BytesIO(jit)) as archive:
        (root,) = {n.split("/")[0] for n in archive.namelist()}
        tree = _JitUnpickler(archive.read(f"{root}/data.pkl"), archive, root).load()
    return {k[len(PREFIX) :]: v for k, v in _tensors(tree).items() if k.startswith(PREFIX)}


def tensor_sha256(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array, dtype="<f4").tobytes()).hexdigest()


def _check(what: str, digest: str, expected: str) -> None:
    if digest != expected:
        raise SystemExit(f"{what}: sha256 {digest}, expected {expected}: not silero-vad 6.2.3's; pip download it again")


def extract(wheel: Path, out_dir: Path = OUT_DIR) -> None:
    _check(str(wheel), hashlib.sha256(wheel.read_bytes()).hexdigest(), WHEEL_SHA256)
    with zipfile.ZipFile(wheel) as whl:
        jit, licence = whl.read(JIT_MEMBER), whl.read(LICENSE_MEMBER)
    _check(JIT_MEMBER, hashlib.sha256(jit).hexdigest(), JIT_SHA256)
    tensors = read_jit(jit)
    if set(tensors) != set(SHA256):
        raise SystemExit(f"unexpected tensors in the .jit: {sorted(set(tensors) ^ set(SHA256))}")
    rows = []
    for name, array in sorted(tensors.items()):
        _check(name, tensor_sha256(array), SHA256[name])
        rows.append(f"| `{name}` | {list(array.shape)} | `{SHA256[name]}` |")
    out = out_dir / "weights.safetensors"
    metadata = {"source": f"silero-vad 6.2.3 wheel (sha256 {WHEEL_SHA256}), {JIT_MEMBER}, 16 kHz model"}
    save_file({k: v.astype(np.float32) for k, v in tensors.items()}, str(out), metadata)
    out.chmod(0o644)
    (out_dir / "LICENSE").write_bytes(licence)
    (out_dir / "SOURCE.md").write_text(SOURCE.format(
        wheel=WHEEL_SHA256, jit=JIT_SHA256, member=JIT_MEMBER, rows="\n".join(rows),
        file=hashlib.sha256(out.read_bytes()).hexdigest(),
    ))  # fmt: skip
    print("\n".join(rows))
    print(f"wrote {out}, LICENSE and SOURCE.md in {out_dir}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wheel", type=Path, help="silero_vad-6.2.3-py3-none-any.whl")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args()
    extract(args.wheel, args.out)


if __name__ == "__main__":
    main()
