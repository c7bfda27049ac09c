"""The folders SenseVoiceSmall loads from, without torch: the original release and a converted MLX folder.

    release (FunAudioLLM/SenseVoiceSmall, iic/SenseVoiceSmall): configuration.json (file_path_metas name the
      files) + config.yaml + model.pt (a torch pickle: read by families/torch_checkpoint.py)
      + am.mvn + chn_jpn_yue_eng_ko_spectok.bpe.model
    converted: config.json (model_type sensevoice_small) + model.safetensors (module names, cmvn.* included)
      + the .bpe.model copied
    -> SenseVoiceArgs, weights under module names, the Vocabulary -> SenseVoiceSmall

Release names -> module names: families/funasr_release.py (encoder_names).
"""

import json
from pathlib import Path
from typing import Optional

import mlx.core as mx

from ...text.jsonfile import REDOWNLOAD
from ..funasr_release import ReleaseFiles, fill, read_converted_weights, read_state, release_model, with_cmvn
from .config import MODEL_TYPE, SenseVoiceArgs
from .model import SenseVoiceSmall
from .vocabulary import Vocabulary

RELEASE_MODEL = "SenseVoiceSmall"  # config.yaml's `model`
DOWNLOAD_PATTERNS = ("configuration.json", "config.yaml", "model.pt", "am.mvn", "*.bpe.model")


def folder_kind(folder: Path) -> Optional[str]:
    """MODEL_TYPE when the folder's config.yaml is a SenseVoiceSmall release's, else None (not this family's).
    The registry asks only about a folder without config.json (a converted folder names its model_type)."""
    return MODEL_TYPE if release_model(folder) == RELEASE_MODEL else None


def read_release(folder: Path) -> tuple[SenseVoiceArgs, dict[str, mx.array], Path]:
    """(args, release-named weights with the CMVN as cmvn.shift/scale, the .bpe.model) of a release folder."""
    files = ReleaseFiles.find(folder, "bpemodel", "the .bpe.model", "bpe.model", "*.bpe.model")
    weights = read_state(files.weights)
    if "ctc.ctc_lo.weight" not in weights:
        raise ValueError(f"{files.weights} has no ctc.ctc_lo.weight: not SenseVoiceSmall's weights ({REDOWNLOAD})")
    config = files.config_with(weights, "ctc.ctc_lo.weight")
    return SenseVoiceArgs.from_dict(config), with_cmvn(weights, files.cmvn), files.vocabulary


def read_converted(folder: Path) -> tuple[SenseVoiceArgs, dict[str, mx.array], Path]:
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    bpe = next(iter(sorted(folder.glob("*.bpe.model"))), None)
    if bpe is None:
        raise FileNotFoundError(f"{folder} needs its .bpe.model beside the *.safetensors: convert the release again")
    return SenseVoiceArgs.from_dict(config), read_converted_weights(folder), bpe


def load_folder(folder: Path, dtype: Optional[mx.Dtype] = None):
    """A release or converted folder -> SenseVoiceSmall with its vocabulary, in `dtype` (load passes the library's
    default: float16 on a GPU, float32 on the CPU; float32 when called without one)."""
    converted = (folder / "config.json").is_file()
    args, weights, bpe = (read_converted if converted else read_release)(folder)
    model = fill(SenseVoiceSmall(args), weights, args.quantization, dtype)
    model.vocabulary, model.vocabulary_file, model.path = Vocabulary.from_file(bpe), bpe, folder
    if len(model.vocabulary) != args.vocab_size:
        raise ValueError(f"{bpe} has {len(model.vocabulary)} pieces for {args.vocab_size} CTC classes: {REDOWNLOAD}")
    return model
