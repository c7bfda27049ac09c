"""The torch-free checkpoint reader, against our torch-free writer (pyannote.audio itself loads the writer's
folders: scripts/make_diarizer_goldens.py checks torch.load gives the same tensors before every golden run)."""

import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

from mlx_qwen3asr.families.pyannote.checkpoint import Specifications, read_torch_checkpoint, state_dict
from mlx_qwen3asr.testing.random_diarizer import write_random_diarizer
from mlx_qwen3asr.testing.torch_pickle import Call, NewObject, write_torch_checkpoint


def test_tensors_and_plain_values_come_back_exactly(tmp_path):
    tensors = OrderedDict(
        w=np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7,
        d=np.linspace(0, 1, 5),
        n=np.array(1000, np.int64),
    )
    meta = {"versions": {"torch": "2.8.0"}, "duration": 10.0, "warm_up": (0.0, 0.0), "classes": ["a", "b"], "x": None}
    write_torch_checkpoint({"state_dict": tensors, "meta": meta}, tmp_path / "m.bin")
    back = read_torch_checkpoint(tmp_path / "m.bin")
    assert list(back["state_dict"]) == ["w", "d", "n"], "tensor order is kept"
    for name, value in tensors.items():
        assert back["state_dict"][name].dtype == value.dtype, name
        assert np.array_equal(back["state_dict"][name], value), name
    assert back["meta"] == meta


def test_pyannote_metadata_classes_become_plain_stand_ins(tmp_path):
    spec = NewObject(
        "pyannote.audio.core.task", "Specifications", {"problem": Call("pyannote.audio.core.task", "Problem", (1,))}
    )
    write_torch_checkpoint({"specifications": spec}, tmp_path / "m.bin")
    back = read_torch_checkpoint(tmp_path / "m.bin")["specifications"]
    assert isinstance(back, Specifications) and back["problem"] == ("Problem", 1)


def test_a_pickle_that_would_run_code_is_refused_in_one_line(tmp_path):
    path = tmp_path / "evil.bin"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", b"\x80\x02cos\nsystem\nX\x02\x00\x00\x00lsR.")
    with pytest.raises(pickle.UnpicklingError, match=r"os\.system.*refusing") as info:
        read_torch_checkpoint(path)
    assert "\n" not in str(info.value)


def test_a_file_that_is_not_a_torch_zip_is_named_with_the_fix(tmp_path):
    path = tmp_path / "pytorch_model.bin"
    path.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a torch zip checkpoint: re-download"):
        read_torch_checkpoint(path)


def test_random_folder_has_the_official_layout(diarizer_dir):
    segmentation = state_dict(diarizer_dir / "segmentation" / "pytorch_model.bin")
    embedding = state_dict(diarizer_dir / "embedding" / "pytorch_model.bin")
    assert (
        len(segmentation) == 54 and sum(v.size for v in segmentation.values()) == 1_473_265 + 250
    )  # + the sinc buffers
    assert len(embedding) == 218 and sum(v.size for v in embedding.values()) == 6_642_884
    assert embedding["resnet.seg_1.weight"].shape == (256, 5120)
    assert segmentation["lstm.weight_ih_l0_reverse"].shape == (512, 60)
    xvec, plda = np.load(diarizer_dir / "plda" / "xvec_transform.npz"), np.load(diarizer_dir / "plda" / "plda.npz")
    assert {k: (v.dtype, v.shape) for k, v in xvec.items()} == {
        "mean1": (np.float64, (256,)), "mean2": (np.float32, (128,)), "lda": (np.float32, (256, 128))
    }  # fmt: skip
    assert {k: v.shape for k, v in plda.items()} == {"mu": (128,), "tr": (128, 128), "psi": (128,)}


def test_the_same_seed_writes_the_same_bytes(tmp_path):
    a, b = write_random_diarizer(tmp_path / "a", seed=3), write_random_diarizer(tmp_path / "b", seed=3)
    for part in ("segmentation/pytorch_model.bin", "embedding/pytorch_model.bin", "plda/plda.npz"):
        assert (a / part).read_bytes() == (b / part).read_bytes(), part
