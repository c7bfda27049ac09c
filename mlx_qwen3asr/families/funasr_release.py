"""What FunASR's own releases share (SenseVoiceSmall, Paraformer): the WavFrontend's features, am.mvn, the
SAN-M encoder's tensor names, and how a release folder names its files. Read without torch.

    wave [N] float32 16 kHz x 32768 (funasr's `upsacle_samples`: the fbank of 16-bit sample values)
    -> Kaldi fbank [F, 80] and LFR 7/6 [T = ceil(F / 6), 560] (audio/fbank.py, as Fun-ASR-Nano's)
    -> CMVN of the release's am.mvn: (x + shift) * scale, per column                     [T, 560]
The scale only moves the log-mel by 2 ln 32768 = 20.79 where the energy is above the log floor; digital
silence stays at the floor (ln float32 eps = -15.94) either way, so the scale is not a constant offset.

am.mvn is Kaldi nnet1 text: an <AddShift> and a <Rescale> component, each followed by a line
"<LearnRateCoef> 0 [ v1 ... v560 ]" (funasr's load_cmvn reads the values between the brackets).

Release names -> the shared encoder's module names (encoder_names; layers/sanm.py):
    encoder.encoders0.0 -> encoder.layers.0; encoder.encoders.i -> layers.{i+1}; tp_encoders.i -> layers.{B+i}
    encoder.after_norm -> layers.{B-1}.final_layernorm; tp_norm -> the last layer's final_layernorm (B = num_blocks)
    in a block: norm1/norm2 -> input_/post_attention_layernorm; self_attn.linear_q_k_v -> q/k/v_proj (split in
    three along the output rows); linear_out -> o_proj; fsmn_block -> fsmn.conv ([C, 1, K] -> MLX's [C, K, 1]);
    feed_forward.w_1/w_2 -> mlp.fc1/fc2. Other names pass unchanged, and so do names already in module form.
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import yaml

from ..audio.fbank import fbank, stack_lfr
from ..layers.config import BaseArgs
from ..layers.from_checkpoint import check_weights, quantize_like_config
from ..text.jsonfile import REDOWNLOAD
from .torch_checkpoint import read_torch_checkpoint

SAMPLE_SCALE = np.float32(1 << 15)
BLOCK_RENAMES = (
    ("norm1.", "input_layernorm."),
    ("norm2.", "post_attention_layernorm."),
    ("self_attn.linear_out.", "self_attn.o_proj."),
    ("self_attn.fsmn_block.", "self_attn.fsmn.conv."),
    ("feed_forward.w_1.", "mlp.fc1."),
    ("feed_forward.w_2.", "mlp.fc2."),
)


@dataclass
class EncoderConf(BaseArgs):
    """config.yaml's encoder_conf of a SAN-M encoder (SANMEncoder, SenseVoiceEncoderSmall)."""

    output_size: int
    attention_heads: int
    linear_units: int
    num_blocks: int
    kernel_size: int = 11
    sanm_shfit: int = 0
    normalize_before: bool = True
    input_layer: str = "pe"  # x * sqrt(output_size) + sinusoid: the only input layer layers/sanm.py has


@dataclass
class FrontendConf(BaseArgs):
    """What the shared Kaldi fbank + LFR computes (audio/fbank.py); other values are refused."""

    fs: int = 16000
    window: str = "hamming"
    n_mels: int = 80
    frame_length: int = 25
    frame_shift: int = 10
    lfr_m: int = 7
    lfr_n: int = 6


SUPPORTED_FRONTEND = FrontendConf()


def lfr_features(wave: np.ndarray) -> np.ndarray:
    """Waveform (16 kHz, unit scale) -> LFR fbank features [T, 560] float32, before CMVN."""
    return stack_lfr(fbank(np.asarray(wave, np.float32) * SAMPLE_SCALE))


def read_cmvn(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(shift, scale) float32 from am.mvn; ValueError naming the file when it holds neither."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    found = {}
    for name, line in zip(lines, lines[1:]):
        words, values = name.split(), line.split()
        if words and words[0] in ("<AddShift>", "<Rescale>") and values[:1] == ["<LearnRateCoef>"]:
            found[words[0]] = np.array(values[3:-1], dtype=np.float32)
    if set(found) != {"<AddShift>", "<Rescale>"} or found["<AddShift>"].shape != found["<Rescale>"].shape:
        raise ValueError(f"{path} has no <AddShift> and <Rescale> of one size: re-download the release's am.mvn")
    return found["<AddShift>"], found["<Rescale>"]


class CMVN(nn.Module):
    """(x + shift) * scale per feature column: the release's am.mvn, stored as two tensors when converted."""

    def __init__(self, dim: int):
        super().__init__()
        self.shift = mx.zeros((dim,))
        self.scale = mx.ones((dim,))

    def __call__(self, x: mx.array) -> mx.array:
        return (x + self.shift) * self.scale


def _block(rest: str) -> str:
    for old, new in BLOCK_RENAMES:
        if rest.startswith(old):
            return new + rest[len(old) :]
    return rest


def encoder_names(weights: dict[str, mx.array], num_blocks: int) -> dict[str, mx.array]:
    """Release names -> module names for the SAN-M encoder's tensors (idempotent); other names unchanged."""
    out, last = {}, None
    for name, value in weights.items():
        name = name.removeprefix("module.")
        match = re.match(r"encoder\.(encoders0|encoders|tp_encoders)\.(\d+)\.(.*)", name)
        if match:
            kind, i, rest = match.group(1), int(match.group(2)), match.group(3)
            index = {"encoders0": i, "encoders": i + 1, "tp_encoders": num_blocks + i}[kind]
            last = max(last or 0, index)
            prefix = f"encoder.layers.{index}."
            if rest.startswith("self_attn.linear_q_k_v."):
                suffix = rest.removeprefix("self_attn.linear_q_k_v.")
                for proj, part in zip(("q_proj", "k_proj", "v_proj"), mx.split(value, 3, axis=0)):
                    out[f"{prefix}self_attn.{proj}.{suffix}"] = part
                continue
            name = prefix + _block(rest)
        elif name.startswith("encoder.after_norm."):
            name = f"encoder.layers.{num_blocks - 1}.final_layernorm." + name.removeprefix("encoder.after_norm.")
        if name.endswith("fsmn.conv.weight") and value.ndim == 3 and value.shape[1] == 1 and value.shape[2] > 1:
            value = value.transpose(0, 2, 1)
        out[name] = value
    for name in [n for n in out if n.startswith("encoder.tp_norm.")]:  # the last index is known once all are seen
        out[f"encoder.layers.{last}.final_layernorm." + name.removeprefix("encoder.tp_norm.")] = out.pop(name)
    return out


def release_model(folder: Path) -> Optional[str]:
    """config.yaml's `model` (the class funasr builds: "SenseVoiceSmall", "Paraformer"), or None."""
    config_yaml = folder / "config.yaml"
    if not config_yaml.is_file():
        return None
    try:
        config = yaml.safe_load(config_yaml.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return None
    return config.get("model") if isinstance(config, dict) else None


def file_metas(folder: Path) -> dict:
    """configuration.json's file_path_metas (which file is the config, the weights, the tokens, am.mvn)."""
    configuration = folder / "configuration.json"
    if not configuration.is_file():
        return {}
    return json.loads(configuration.read_text(encoding="utf-8")).get("file_path_metas", {})


def release_file(folder: Path, metas: dict, key: str, default: str, pattern: str = "") -> Optional[Path]:
    """The file `metas[key]` names, else `default`, else the first match of `pattern`; None when absent."""
    named = metas.get(key)
    path = folder / named if isinstance(named, str) else folder / default
    if not path.is_file() and pattern:
        path = next(iter(sorted(folder.glob(pattern))), path)
    return path if path.is_file() else None


@dataclass(frozen=True)
class ReleaseFiles:
    """The files of a FunASR release folder: config.yaml, model.pt, the vocabulary, am.mvn (None: no CMVN)."""

    config: Path
    weights: Path
    vocabulary: Path
    cmvn: Optional[Path]

    @classmethod
    def find(cls, folder: Path, vocabulary_key: str, label: str, default: str, pattern: str = "") -> "ReleaseFiles":
        """As configuration.json names them (the vocabulary under tokenizer_conf[vocabulary_key], else `default`,
        else `pattern`); FileNotFoundError naming what is missing (`label`: the vocabulary's name in it)."""
        metas = file_metas(folder)
        config = release_file(folder, metas, "config", "config.yaml")
        weights = release_file(folder, metas, "init_param", "model.pt")
        vocabulary = release_file(folder, metas.get("tokenizer_conf", {}), vocabulary_key, default, pattern)
        cmvn = release_file(folder, metas.get("frontend_conf", {}), "cmvn_file", "am.mvn")
        found = (("config.yaml", config), ("model.pt", weights), (label, vocabulary))
        missing = [name for name, path in found if path is None]
        if missing:
            raise FileNotFoundError(f"{folder} has no {', '.join(missing)}: {REDOWNLOAD}")
        return cls(config, weights, vocabulary, cmvn)

    def config_with(self, weights: dict[str, mx.array], head: str) -> dict:
        """config.yaml, with the vocabulary size (the rows of the `head` tensor) and whether am.mvn is there."""
        config = yaml.safe_load(self.config.read_text(encoding="utf-8"))
        config.update(vocab_size=int(weights[head].shape[0]), cmvn=self.cmvn is not None)
        return config


def read_state(weights_file: Path) -> dict[str, mx.array]:
    """model.pt -> its tensors as float32 arrays under their release names (no torch)."""
    state = read_torch_checkpoint(weights_file)
    for key in ("state_dict", "model"):  # training checkpoints nest the weights
        if isinstance(state, dict) and isinstance(state.get(key), dict):
            state = state[key]
    return {name: mx.array(np.asarray(value, np.float32)) for name, value in state.items()}


def with_cmvn(weights: dict[str, mx.array], cmvn_file: Optional[Path]) -> dict[str, mx.array]:
    """The weights with am.mvn's shift and scale as cmvn.shift / cmvn.scale (unchanged without the file)."""
    if cmvn_file is not None:
        shift, scale = read_cmvn(cmvn_file)
        weights["cmvn.shift"], weights["cmvn.scale"] = mx.array(shift), mx.array(scale)
    return weights


def read_converted_weights(folder: Path) -> dict[str, mx.array]:
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise FileNotFoundError(f"{folder} has no *.safetensors: convert the release again")
    return {k: v for file in files for k, v in mx.load(str(file)).items()}


def fill(model: nn.Module, weights: dict[str, mx.array], quantization: Optional[dict], dtype: Optional[mx.Dtype]):
    """Sanitized weights into `model` (quantized as config.json says, checked, cast to `dtype`: float32 when None)."""
    weights = model.sanitize(weights)
    if quantization:  # as config.json says (the loader's rule)
        quantize_like_config(model, quantization, weights)
    check_weights(model, weights)
    dtype = dtype or mx.float32
    model.load_weights([(k, v.astype(dtype) if mx.issubdtype(v.dtype, mx.floating) else v) for k, v in weights.items()])
    mx.eval(model.parameters())
    return model
