"""Random-weight pyannote speaker-diarization-community-1 folders in the official layout (numpy only).

    seed -> segmentation_state() (PyanNet, 54 tensors) + embedding_state() (WeSpeaker ResNet34, 218 tensors)
         -> torch zip checkpoints with the official metadata (torch_pickle.py) + plda/*.npz + config.yaml

pyannote.audio 4.0.7 loads the folder as it loads the real one (the golden script checks it). Scales keep
activations O(1) so the outputs vary with the audio: PyTorch-like uniform +-1/sqrt(fan_in) for the
segmentation (LSTM x3, classifier x4, zero biases after the LSTM, so that the powerset classes change), He-like convolutions with damped residual
branches for the ResNet, and rows of the final projection summing to zero so that the all-positive pooled
statistics do not make every embedding point the same way.
"""

import shutil
import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Union

import numpy as np

from .torch_pickle import Call, NewObject, write_torch_checkpoint

CONFIG_DIR = Path(__file__).parent / "pyannote-community-1"
TASK = "pyannote.audio.core.task"
VERSIONS = {"torch": "2.8.0", "pyannote.audio": "4.0.0"}  # placeholders: the real strings are not public
SEGMENTATION_HPARAMS = {
    "sample_rate": 16000,
    "num_channels": 1,
    "sincnet": {"stride": 10, "sample_rate": 16000},
    "lstm": {
        "hidden_size": 128,
        "num_layers": 4,
        "bidirectional": True,
        "monolithic": True,
        "dropout": 0.5,
        "batch_first": True,
    },
    "linear": {"hidden_size": 128, "num_layers": 2},
}
RESNET_BLOCKS = ((1, 32, 3), (2, 64, 4), (3, 128, 6), (4, 256, 3))  # layer, channels, blocks
PathLike = Union[str, Path]


class _Draw:
    """Deterministic draws: one stream per tensor name."""

    def __init__(self, seed: int):
        self.seed = seed

    def rng(self, name: str) -> np.random.Generator:
        return np.random.default_rng([self.seed, zlib.crc32(name.encode())])

    def uniform(self, name: str, shape: tuple, bound: float, mean: float = 0.0) -> np.ndarray:
        return (mean + self.rng(name).uniform(-bound, bound, shape)).astype(np.float32)


def _sinc_buffers(draw: _Draw) -> dict[str, np.ndarray]:
    mel = np.linspace(2595 * np.log10(1 + 30 / 700), 2595 * np.log10(1 + 7950 / 700), 41)
    hz = 700 * (10 ** (mel / 2595) - 1)
    jitter = draw.uniform("sincnet.jitter", (40,), 0.05, 1.0)
    half = np.linspace(0, 125 - 1, 125)
    return {
        "low_hz_": ((hz[:-1] - 50) * jitter)[:, None].astype(np.float32),
        "band_hz_": (np.diff(hz) * jitter)[:, None].astype(np.float32),
        "window_": (0.54 - 0.46 * np.cos(2 * np.pi * half / 251)).astype(np.float32),
        "n_": (2 * np.pi * np.arange(-125, 0) / 16000)[None].astype(np.float32),
    }


def segmentation_state(seed: int = 0) -> OrderedDict:
    """PyanNet's state dict (names and shapes of segmentation/pytorch_model.bin), random values."""
    draw, state = _Draw(seed), OrderedDict()
    state["sincnet.wav_norm1d.weight"] = draw.uniform("wav_norm.w", (1,), 0.1, 1.0)
    state["sincnet.wav_norm1d.bias"] = draw.uniform("wav_norm.b", (1,), 0.1)
    for name, value in _sinc_buffers(draw).items():
        state[f"sincnet.conv1d.0.filterbank.{name}"] = value
    for i, (cin, cout) in ((1, (80, 60)), (2, (60, 60))):
        bound = 1 / np.sqrt(cin * 5)
        state[f"sincnet.conv1d.{i}.weight"] = draw.uniform(f"conv{i}.w", (cout, cin, 5), bound)
        state[f"sincnet.conv1d.{i}.bias"] = draw.uniform(f"conv{i}.b", (cout,), bound)
    for i, channels in enumerate((80, 60, 60)):
        state[f"sincnet.norm1d.{i}.weight"] = draw.uniform(f"norm{i}.w", (channels,), 0.2, 1.0)
        state[f"sincnet.norm1d.{i}.bias"] = draw.uniform(f"norm{i}.b", (channels,), 0.2)
    bound = 3 / np.sqrt(128)  # x3 PyTorch's: weaker recurrences keep every frame in one powerset class
    for layer in range(4):
        for suffix in ("", "_reverse"):
            key = f"l{layer}{suffix}"
            state[f"lstm.weight_ih_{key}"] = draw.uniform(f"ih{key}", (512, 60 if layer == 0 else 256), bound)
            state[f"lstm.weight_hh_{key}"] = draw.uniform(f"hh{key}", (512, 128), bound)
            state[f"lstm.bias_ih_{key}"] = draw.uniform(f"bih{key}", (512,), bound)
            state[f"lstm.bias_hh_{key}"] = draw.uniform(f"bhh{key}", (512,), bound)
    for i, cin in enumerate((256, 128)):
        state[f"linear.{i}.weight"] = draw.uniform(f"linear{i}.w", (128, cin), 1 / np.sqrt(cin))
        state[f"linear.{i}.bias"] = np.zeros(128, np.float32)
    state["classifier.weight"] = draw.uniform("classifier.w", (7, 128), 4 / np.sqrt(128))
    state["classifier.bias"] = np.zeros(7, np.float32)  # random biases pick one class for every frame
    return state


def _batch_norm(draw: _Draw, state: OrderedDict, prefix: str, channels: int, gain: float = 1.0) -> None:
    state[f"{prefix}.weight"] = draw.uniform(f"{prefix}.w", (channels,), 0.1 * gain, gain)
    state[f"{prefix}.bias"] = draw.uniform(f"{prefix}.b", (channels,), 0.1)
    state[f"{prefix}.running_mean"] = draw.uniform(f"{prefix}.m", (channels,), 0.1)
    state[f"{prefix}.running_var"] = draw.uniform(f"{prefix}.v", (channels,), 0.2, 1.0)
    state[f"{prefix}.num_batches_tracked"] = np.array(1000, np.int64)


def _conv(draw: _Draw, name: str, cout: int, cin: int, k: int) -> np.ndarray:
    return draw.uniform(name, (cout, cin, k, k), np.sqrt(6 / (cin * k * k)))  # He: std sqrt(2 / fan_in)


def embedding_state(seed: int = 0) -> OrderedDict:
    """WeSpeakerResNet34's state dict (names and shapes of embedding/pytorch_model.bin), random values."""
    draw, state = _Draw(seed + 1), OrderedDict()
    state["resnet.conv1.weight"] = _conv(draw, "conv1", 32, 1, 3) * np.float32(0.1)  # fbank values reach ~20
    _batch_norm(draw, state, "resnet.bn1", 32)
    cin = 32
    for layer, channels, blocks in RESNET_BLOCKS:
        for j in range(blocks):
            p = f"resnet.layer{layer}.{j}"
            state[f"{p}.conv1.weight"] = _conv(draw, f"{p}.conv1", channels, cin, 3)
            _batch_norm(draw, state, f"{p}.bn1", channels)
            state[f"{p}.conv2.weight"] = _conv(draw, f"{p}.conv2", channels, channels, 3)
            _batch_norm(draw, state, f"{p}.bn2", channels, gain=0.3)
            if cin != channels:
                state[f"{p}.shortcut.0.weight"] = _conv(draw, f"{p}.shortcut", channels, cin, 1)
                _batch_norm(draw, state, f"{p}.shortcut.1", channels)
            cin = channels
    weight = draw.uniform("seg_1.w", (256, 5120), np.sqrt(3 / 5120))
    state["resnet.seg_1.weight"] = weight - weight.mean(axis=1, keepdims=True)
    state["resnet.seg_1.bias"] = draw.uniform("seg_1.b", (256,), 0.01)
    return state


def _specifications(problem: int, resolution: int, duration: float, **fields) -> NewObject:
    state = {
        "problem": Call(TASK, "Problem", (problem,)),
        "resolution": Call(TASK, "Resolution", (resolution,)),
        "duration": duration,
        "min_duration": None,
        "warm_up": (0.0, 0.0),
        "classes": None,
        "powerset_max_classes": None,
        "permutation_invariant": False,
    }
    return NewObject(TASK, "Specifications", {**state, **fields})


def _metadata(module: str, cls: str, specifications: NewObject) -> dict:
    return {
        "versions": dict(VERSIONS),
        "architecture": {"module": module, "class": cls},
        "specifications": specifications,
    }


def _plda(draw: _Draw) -> tuple[dict, dict]:
    rng = draw.rng("plda")
    transform = {
        "mean1": rng.normal(0, 0.1, 256).astype(np.float64),
        "mean2": rng.normal(0, 0.1, 128).astype(np.float32),
        "lda": (rng.normal(0, 1, (256, 128)) / np.sqrt(256)).astype(np.float32),
    }
    tr = np.eye(128) + rng.normal(0, 0.3 / np.sqrt(128), (128, 128))
    plda = {"mu": rng.normal(0, 0.1, 128), "tr": tr, "psi": np.sort(rng.uniform(0.5, 20.0, 128))[::-1].copy()}
    return transform, plda


def write_random_diarizer(folder: PathLike, seed: int = 0) -> Path:
    """A random-weight folder laid out like pyannote/speaker-diarization-community-1 (same seed, same bytes)."""
    folder = Path(folder)
    (folder / "plda").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CONFIG_DIR / "config.yaml", folder / "config.yaml")
    segmentation = {
        "pytorch-lightning_version": "2.5.0",
        "state_dict": segmentation_state(seed),
        "hparams_name": "kwargs",
        "hyper_parameters": SEGMENTATION_HPARAMS,
        "pyannote.audio": _metadata(
            "pyannote.audio.models.segmentation",
            "PyanNet",
            _specifications(
                1, 1, 10.0, classes=["speaker#1", "speaker#2", "speaker#3"], powerset_max_classes=2,
                permutation_invariant=True,
            ),
        ),
    }  # fmt: skip
    write_torch_checkpoint(segmentation, folder / "segmentation" / "pytorch_model.bin")
    embedding = {
        "state_dict": embedding_state(seed),
        "pyannote.audio": _metadata(
            "pyannote.audio.models.embedding.wespeaker", "WeSpeakerResNet34", _specifications(3, 2, 5.0)
        ),
        "pytorch-lightning_version": "2.5.0",
    }
    write_torch_checkpoint(embedding, folder / "embedding" / "pytorch_model.bin")
    transform, plda = _plda(_Draw(seed + 2))
    np.savez(folder / "plda" / "xvec_transform.npz", **transform)
    np.savez(folder / "plda" / "plda.npz", **plda)
    return folder
