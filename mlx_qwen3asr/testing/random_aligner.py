"""Random-weight Qwen3-ForcedAligner checkpoints in the official layout (numpy only).

    aligner config dict (real config.json, or tiny_aligner_config())
      -> random_checkpoint.tensor_specs (encoder + decoder, same streams and scales as the ASR ones)
         with the tied lm_head copy replaced by an untied [classify_num, hidden] classifier
         (listening=True: a few tensors scaled up, so that the classes follow the audio)
      -> one model.safetensors (bf16) + config.json + the tokenizer/processor files

The aligner's own files (tokenizer_config.json with `<timestamp>`, generation_config.json) come from
`qwen3-forcedaligner-0.6b/`; vocab.json, merges.txt and the identical processor files from the ASR
folder. Like random_checkpoint.py it imports neither mlx nor torch.
"""

import copy
import dataclasses
import json
import shutil
from pathlib import Path
from typing import Optional, Union

import numpy as np

from .random_checkpoint import DATA_FILES, FIXTURES_DIR, TINY_AUDIO, TINY_TEXT, tensor_specs
from .tensors import TensorSpec, write_safetensors

ALIGNER_FILES_DIR = Path(__file__).resolve().parent / "qwen3-forcedaligner-0.6b"
PathLike = Union[str, Path]
# listening=True: (name prefix, name part, gain on std and mean). Plain random weights give every
# <timestamp> position the same class (the positions differ only by averaged attention context); these
# gains (as tests/app/conftest.py's listening checkpoint) make the classes vary with the audio and with
# the encoder's attention windows: audio projection x100, decoder values/outputs x10, and q/k norms x4,
# which sharpen the decoder's attention so that each position looks at different tokens.
LISTENING_GAINS = (
    ("thinker.audio_tower.proj2.", "", 100.0),
    ("thinker.model.layers.", ".v_proj.", 10.0),
    ("thinker.model.layers.", ".o_proj.", 10.0),
    ("thinker.model.layers.", ".q_norm.", 4.0),
    ("thinker.model.layers.", ".k_norm.", 4.0),
)


def tiny_aligner_config() -> dict:
    """The real Qwen3-ForcedAligner-0.6B config.json with only the layer sizes shrunk (vocab, classes,
    ids kept), the same tiny sizes as the ASR tiny_config()."""
    config = json.loads((ALIGNER_FILES_DIR / "config.json").read_text())
    thinker = config["thinker_config"]
    thinker["audio_config"].update(TINY_AUDIO)
    thinker["text_config"].update(TINY_TEXT)
    return config


def with_listening_gain(spec: TensorSpec) -> TensorSpec:
    for prefix, part, gain in LISTENING_GAINS:
        if spec.name.startswith(prefix) and part in spec.name:
            return dataclasses.replace(spec, std=spec.std * gain, mean=spec.mean * gain)
    return spec


def aligner_tensor_specs(config: dict, listening_gains: bool = False) -> list[TensorSpec]:
    """All tensors, in module order: the ASR specs with the head as a classifier of classify_num rows."""
    thinker = config["thinker_config"]
    hidden = thinker["text_config"]["hidden_size"]
    # Equal-scale rows: with the ASR embeddings' spread-out row norms one class wins at every position.
    head = TensorSpec("thinker.lm_head.weight", (thinker["classify_num"], hidden), 1.0 / np.sqrt(hidden))
    specs = tensor_specs(config)
    assert specs[-1].name == head.name
    specs = specs[:-1] + [head]
    return [with_listening_gain(spec) for spec in specs] if listening_gains else specs


def write_random_aligner(
    out_dir: PathLike, config: Optional[dict] = None, *, seed: int = 0, listening: bool = False
) -> Path:
    """Write a bf16 random aligner folder loadable by the official code; returns the folder.
    `listening`: scale LISTENING_GAINS' tensors, so that the predicted times depend on the audio."""
    config = copy.deepcopy(config) if config is not None else tiny_aligner_config()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name in DATA_FILES:
        own = ALIGNER_FILES_DIR / name
        shutil.copyfile(own if own.exists() else FIXTURES_DIR / name, out / name)
    (out / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    write_safetensors(out / "model.safetensors", aligner_tensor_specs(config, listening), seed)
    return out
