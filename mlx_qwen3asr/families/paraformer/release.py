"""The folders Paraformer loads from, without torch: the original release and a converted MLX folder.

release (iic/speech_paraformer-large_asr_nat-zh-cn-16k-common-vocab8404-pytorch, funasr/paraformer-zh):
  configuration.json (file_path_metas name the files) + config.yaml (model: Paraformer) + model.pt (a torch
  pickle: families/torch_checkpoint.py) + am.mvn + tokens.json (a JSON list of 8404 strings); seg_dict (the
  training tokenizer's word splits) and example/ are not read
converted: config.json (model_type paraformer) + model.safetensors (module names, cmvn.* included)
  + tokens.json copied
-> ParaformerArgs, weights under module names, Tokens -> Paraformer
"""

import json
from pathlib import Path
from typing import Optional

import mlx.core as mx

from ...text.jsonfile import REDOWNLOAD
from ..funasr_release import ReleaseFiles, fill, read_converted_weights, read_state, release_model, with_cmvn
from .config import MODEL_TYPE, ParaformerArgs
from .model import Paraformer
from .text import Tokens

RELEASE_MODEL = "Paraformer"  # config.yaml's `model`
TOKENS = "tokens.json"
DOWNLOAD_PATTERNS = ("configuration.json", "config.yaml", "model.pt", "am.mvn", TOKENS)


def folder_kind(folder: Path) -> Optional[str]:
    """MODEL_TYPE when the folder's config.yaml is a Paraformer release's, else None (not this family's)."""
    return MODEL_TYPE if release_model(folder) == RELEASE_MODEL else None


def read_release(folder: Path) -> tuple[ParaformerArgs, dict[str, mx.array], Path]:
    """(args, release-named weights with the CMVN as cmvn.shift/scale, tokens.json) of a release folder."""
    files = ReleaseFiles.find(folder, "token_list", TOKENS, TOKENS)
    weights = read_state(files.weights)
    if "decoder.output_layer.weight" not in weights or "predictor.cif_output.weight" not in weights:
        raise ValueError(f"{files.weights} has no decoder.output_layer or predictor: not Paraformer's ({REDOWNLOAD})")
    config = files.config_with(weights, "decoder.output_layer.weight")
    return ParaformerArgs.from_dict(config), with_cmvn(weights, files.cmvn), files.vocabulary


def read_converted(folder: Path) -> tuple[ParaformerArgs, dict[str, mx.array], Path]:
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    tokens = folder / TOKENS
    if not tokens.is_file():
        raise FileNotFoundError(f"{folder} needs its {TOKENS} beside the *.safetensors: convert the release again")
    return ParaformerArgs.from_dict(config), read_converted_weights(folder), tokens


def load_folder(folder: Path, dtype: Optional[mx.Dtype] = None) -> Paraformer:
    """A release or converted folder -> Paraformer with its tokens, in `dtype` (load passes the library's
    default: float16 on a GPU, float32 on the CPU; float32 when called without one)."""
    converted = (folder / "config.json").is_file()
    args, weights, tokens = (read_converted if converted else read_release)(folder)
    model = fill(Paraformer(args), weights, args.quantization, dtype)
    model.tokens, model.tokens_file, model.path = Tokens.from_file(tokens), tokens, folder
    if len(model.tokens) != args.vocab_size:
        raise ValueError(f"{tokens} has {len(model.tokens)} tokens for {args.vocab_size} decoder outputs: {REDOWNLOAD}")
    return model
