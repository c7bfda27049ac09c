"""Random-weight Qwen3-ForcedAligner checkpoints in the official layout (numpy only).

    aligner config dict (real config.json, or tiny_aligner_config())
      -> random_checkpoint.tensor_specs (encoder + decoder, same streams and scales as the ASR ones)
         with the tied lm_head copy replaced by an untied [classify_num, hidden] classifier
      -> one model.safetensors (bf16) + config.json + the tokenizer/processor files

The aligner's own files (tokenizer_config.json with `<timestamp>`, generation_config.json) come from
`qwen3-forcedaligner-0.6b/`; vocab.json, merges.txt and the identical processor files from the ASR
folder. Like random_checkpoint.py it imports neither mlx nor torch.
"""

import copy
import json
import shutil
from pathlib import Path
from typing import Optional, Union

import numpy as np

from .random_checkpoint import DATA_FILES, FIXTURES_DIR, TINY_AUDIO, TINY_TEXT, TensorSpec, tensor_specs
from .random_checkpoint import write_safetensors

ALIGNER_FILES_DIR = Path(__file__).resolve().parent / "qwen3-forcedaligner-0.6b"
PathLike = Union[str, Path]


def tiny_aligner_config() -> dict:
    """The real Qwen3-ForcedAligner-0.6B config.json with only the layer sizes shrunk (vocab, classes,
    ids kept), the same tiny sizes as the ASR tiny_config()."""
    config = json.loads((ALIGNER_FILES_DIR / "config.json").read_text())
    thinker = config["thinker_config"]
    thinker["audio_config"].update(TINY_AUDIO)
    thinker["text_config"].update(TINY_TEXT)
    return config


def aligner_tensor_specs(config: dict) -> list[TensorSpec]:
    """All tensors, in module order: the ASR specs with the head as a classifier of classify_num rows."""
    thinker = config["thinker_config"]
    hidden = thinker["text_config"]["hidden_size"]
    # Equal-scale rows: with the ASR embeddings' spread-out row norms one class wins at every position.
    head = TensorSpec("thinker.lm_head.weight", (thinker["classify_num"], hidden), 1.0 / np.sqrt(hidden))
    specs = tensor_specs(config)
    assert specs[-1].name == head.name
    return specs[:-1] + [head]


def write_random_aligner(out_dir: PathLike, config: Optional[dict] = None, *, seed: int = 0) -> Path:
    """Write a bf16 random aligner folder loadable by the official code; returns the folder."""
    config = copy.deepcopy(config) if config is not None else tiny_aligner_config()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name in DATA_FILES:
        own = ALIGNER_FILES_DIR / name
        shutil.copyfile(own if own.exists() else FIXTURES_DIR / name, out / name)
    (out / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    write_safetensors(out / "model.safetensors", aligner_tensor_specs(config), seed)
    return out
