"""The folders SenseVoiceSmall loads from, without torch: the original release and a converted MLX folder.

    release (FunAudioLLM/SenseVoiceSmall, iic/SenseVoiceSmall): configuration.json (file_path_metas name the
      files) + config.yaml + model.pt (a torch pickle: read by families/pyannote/checkpoint.py's restricted unpickler)
      + am.mvn + chn_jpn_yue_eng_ko_spectok.bpe.model
    converted: config.json (model_type sensevoice_small) + model.safetensors (module names, cmvn.* included)
      + the .bpe.model copied
    -> SenseVoiceArgs, weights under module names, the Vocabulary -> SenseVoiceSmall

Release names -> module names (module_names):
    encoder.encoders0.0 -> encoder.layers.0; encoder.encoders.i -> layers.{i+1}; tp_encoders.i -> layers.{B+i}
    encoder.after_norm -> layers.{B-1}.final_layernorm; tp_norm -> the last layer's final_layernorm (B = num_blocks)
    in a block: norm1/norm2 -> input_/post_attention_layernorm; self_attn.linear_q_k_v -> q/k/v_proj (split in
    three along the output rows); linear_out -> o_proj; fsmn_block -> fsmn.conv ([C, 1, K] -> MLX's [C, K, 1]);
    feed_forward.w_1/w_2 -> mlp.fc1/fc2. embed.weight and ctc.ctc_lo.* keep their names.
"""

import json
from pathlib import Path
from typing import Optional

import mlx.core as mx
import numpy as np
import yaml

from ...layers.from_checkpoint import check_weights, quantize_like_config
from ...text.jsonfile import REDOWNLOAD
from ..torch_checkpoint import read_torch_checkpoint
from .config import MODEL_TYPE, SenseVoiceArgs
from .frontend import read_cmvn
from .model import SenseVoiceSmall
from .vocabulary import Vocabulary

RELEASE_MODEL = "SenseVoiceSmall"  # config.yaml's `model`
DOWNLOAD_PATTERNS = ("configuration.json", "config.yaml", "model.pt", "am.mvn", "*.bpe.model")


def folder_kind(folder: Path) -> Optional[str]:
    """MODEL_TYPE when the folder's config.yaml is a SenseVoiceSmall release's, else None (not this family's).
    The registry asks only about a folder without config.json (a converted folder names its model_type)."""
    config_yaml = folder / "config.yaml"
    if not config_yaml.is_file():
        return None
    try:
        config = yaml.safe_load(config_yaml.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return None
    return MODEL_TYPE if isinstance(config, dict) and config.get("model") == RELEASE_MODEL else None


def _file(folder: Path, metas: dict, key: str, default: str, pattern: str = "") -> Optional[Path]:
    named = metas.get(key)
    path = folder / named if isinstance(named, str) else folder / default
    if not path.is_file() and pattern:
        path = next(iter(sorted(folder.glob(pattern))), path)
    return path if path.is_file() else None


def read_release(folder: Path) -> tuple[SenseVoiceArgs, dict[str, mx.array], Path]:
    """(args, release-named weights with the CMVN as cmvn.shift/scale, the .bpe.model) of a release folder."""
    configuration = folder / "configuration.json"
    metas = (
        json.loads(configuration.read_text(encoding="utf-8")).get("file_path_metas", {})
        if configuration.is_file()
        else {}
    )
    config_file = _file(folder, metas, "config", "config.yaml")
    weights_file = _file(folder, metas, "init_param", "model.pt")
    bpe = _file(folder, metas.get("tokenizer_conf", {}), "bpemodel", "bpe.model", "*.bpe.model")
    cmvn_file = _file(folder, metas.get("frontend_conf", {}), "cmvn_file", "am.mvn")
    missing = [
        name
        for name, path in (("config.yaml", config_file), ("model.pt", weights_file), ("the .bpe.model", bpe))
        if path is None
    ]
    if missing:
        raise FileNotFoundError(f"{folder} has no {', '.join(missing)}: {REDOWNLOAD}")
    state = read_torch_checkpoint(weights_file)
    for key in ("state_dict", "model"):  # training checkpoints nest the weights
        if isinstance(state, dict) and isinstance(state.get(key), dict):
            state = state[key]
    weights = {name: mx.array(np.asarray(value, np.float32)) for name, value in state.items()}
    if "ctc.ctc_lo.weight" not in weights:
        raise ValueError(f"{weights_file} has no ctc.ctc_lo.weight: not SenseVoiceSmall's weights ({REDOWNLOAD})")
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    config.update(vocab_size=int(weights["ctc.ctc_lo.weight"].shape[0]), cmvn=cmvn_file is not None)
    if cmvn_file is not None:
        shift, scale = read_cmvn(cmvn_file)
        weights["cmvn.shift"], weights["cmvn.scale"] = mx.array(shift), mx.array(scale)
    return SenseVoiceArgs.from_dict(config), weights, bpe


def read_converted(folder: Path) -> tuple[SenseVoiceArgs, dict[str, mx.array], Path]:
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    files = sorted(folder.glob("*.safetensors"))
    bpe = next(iter(sorted(folder.glob("*.bpe.model"))), None)
    if not files or bpe is None:
        raise FileNotFoundError(f"{folder} needs its *.safetensors and .bpe.model: convert the release again")
    weights = {k: v for file in files for k, v in mx.load(str(file)).items()}
    return SenseVoiceArgs.from_dict(config), weights, bpe


def load_folder(folder: Path, dtype: Optional[mx.Dtype] = None):
    """A release or converted folder -> SenseVoiceSmall with its vocabulary, in `dtype` (load passes the library's
    default: float16 on a GPU, float32 on the CPU; float32 when called without one)."""
    converted = (folder / "config.json").is_file()
    args, weights, bpe = (read_converted if converted else read_release)(folder)
    model = SenseVoiceSmall(args)
    weights = model.sanitize(weights)
    if args.quantization:  # as config.json says (the loader's rule)
        quantize_like_config(model, args.quantization, weights)
    check_weights(model, weights)
    dtype = dtype or mx.float32
    model.load_weights([(k, v.astype(dtype) if mx.issubdtype(v.dtype, mx.floating) else v) for k, v in weights.items()])
    mx.eval(model.parameters())
    model.vocabulary, model.vocabulary_file, model.path = Vocabulary.from_file(bpe), bpe, folder
    if len(model.vocabulary) != args.vocab_size:
        raise ValueError(f"{bpe} has {len(model.vocabulary)} pieces for {args.vocab_size} CTC classes: {REDOWNLOAD}")
    return model
