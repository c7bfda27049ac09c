"""The original FunASR release of Fun-ASR-Nano (`FunAudioLLM/Fun-ASR-Nano-2512`: a torch `model.pt`,
config.yaml, no config.json) -> the transformers "-hf" layout that `load` and the converter take.

    model.pt (torch pickle; needs torch) -> state dict -> hf_names -> "-hf" folder: model.safetensors
    + the "-hf" config.json and processor files (release.py) + tokenizer.json from the release's own
    Qwen3 vocab.json / merges.txt

Name mapping (the transformers conversion script's, as its history and sglang-omni's layout show it):
    audio_encoder.encoders0.0 -> layers.0; encoders.i -> layers.{i+1}; tp_encoders.i -> layers.{50+i}
    audio_encoder.after_norm -> layers.49.final_layernorm; tp_norm -> layers.69.final_layernorm
    in a block: norm1/norm2 -> input_/post_attention_layernorm, self_attn.linear_q_k_v -> q/k/v_proj
    (split in three along the output rows), linear_out -> o_proj, fsmn_block -> fsmn.conv,
    feed_forward.w_1/w_2 -> mlp.fc1/fc2
    audio_adaptor.linear1/2 -> multi_modal_projector.linear_1/_2; audio_adaptor.blocks.i -> layers.i
    (linear_q/k/v/out -> q/k/v/o_proj); llm.model.* -> model.language_model.*; the CTC branch dropped.
"""

import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Optional

import mlx.core as mx
import numpy as np

from ...text.jsonfile import REDOWNLOAD
from .release import COPIED_FILES, RELEASE_DIR, release_config, write_tokenizer_json

ORIGINAL_WEIGHTS = "model.pt"
DROPPED = ("ctc.", "ctc_decoder.", "llm.lm_head.")  # the CTC branch; the tied head (a copy of embed_tokens)
BLOCK_RENAMES = (
    ("norm1.", "input_layernorm."),
    ("norm2.", "post_attention_layernorm."),
    ("self_attn.linear_out.", "self_attn.o_proj."),
    ("self_attn.linear_q.", "self_attn.q_proj."),
    ("self_attn.linear_k.", "self_attn.k_proj."),
    ("self_attn.linear_v.", "self_attn.v_proj."),
    ("self_attn.fsmn_block.", "self_attn.fsmn.conv."),
    ("feed_forward.w_1.", "mlp.fc1."),
    ("feed_forward.w_2.", "mlp.fc2."),
)


def is_original(folder: Path) -> bool:
    """A FunASR release folder: model.pt and no config.json (an "-hf" or MLX folder has one)."""
    return (folder / ORIGINAL_WEIGHTS).is_file() and not (folder / "config.json").is_file()


def refusal(folder: Path) -> str:
    """What `load` says about an original release: convert it once first."""
    return (
        f"{folder} is the original FunASR release (model.pt): convert it once with scripts/convert.sh --model "
        f"{folder} -o FOLDER (needs torch), or use the transformers release FunAudioLLM/Fun-ASR-Nano-2512-hf"
    )


def _block(rest: str) -> str:
    for old, new in BLOCK_RENAMES:
        if rest.startswith(old):
            return new + rest[len(old) :]
    return rest


def hf_names(state: dict[str, np.ndarray], transcription_layers: int = 50) -> dict[str, np.ndarray]:
    """Original state-dict names -> "-hf" names (values as given; q/k/v split). Unknown names pass through
    unchanged, so that the loader's check names them."""
    out = {}
    last = None
    for name, value in state.items():
        name = name.removeprefix("module.")
        if name.startswith(DROPPED):
            continue
        match = re.match(r"audio_encoder\.(encoders0|encoders|tp_encoders)\.(\d+)\.(.*)", name)
        if match:
            kind, i, rest = match.group(1), int(match.group(2)), match.group(3)
            index = {"encoders0": i, "encoders": i + 1, "tp_encoders": transcription_layers + i}[kind]
            prefix = f"model.audio_tower.layers.{index}."
            last = max(last or 0, index)
            if rest.startswith("self_attn.linear_q_k_v."):
                suffix = rest.removeprefix("self_attn.linear_q_k_v.")
                for proj, part in zip(("q_proj", "k_proj", "v_proj"), np.split(value, 3, axis=0)):
                    out[f"{prefix}self_attn.{proj}.{suffix}"] = part
                continue
            out[prefix + _block(rest)] = value
            continue
        match = re.match(r"audio_adaptor\.blocks\.(\d+)\.(.*)", name)
        if match:
            out[f"model.multi_modal_projector.layers.{match.group(1)}.{_block(match.group(2))}"] = value
            continue
        for old, new in (
            ("audio_encoder.after_norm.", f"model.audio_tower.layers.{transcription_layers - 1}.final_layernorm."),
            ("audio_adaptor.linear1.", "model.multi_modal_projector.linear_1."),
            ("audio_adaptor.linear2.", "model.multi_modal_projector.linear_2."),
            ("llm.model.", "model.language_model."),
        ):
            if name.startswith(old):
                name = new + name[len(old) :]
                break
        out[name] = value
    tp_norm = [n for n in out if n.startswith("audio_encoder.tp_norm.")]
    for name in tp_norm:  # the last layer's index is known only once every block is seen
        out[f"model.audio_tower.layers.{last}.final_layernorm." + name.removeprefix("audio_encoder.tp_norm.")] = (
            out.pop(name)
        )
    return out


def read_original(folder: Path) -> dict[str, np.ndarray]:
    """model.pt's tensors as float32 numpy arrays (needs torch: the file is a torch pickle)."""
    try:
        import torch
    except ImportError as e:
        raise ValueError(
            f"{folder} holds the original FunASR release ({ORIGINAL_WEIGHTS}), a torch file: converting it needs "
            "torch (.venv/bin/pip install torch), or use the transformers release FunAudioLLM/Fun-ASR-Nano-2512-hf "
            "(no conversion needed)"
        ) from e
    state = torch.load(folder / ORIGINAL_WEIGHTS, map_location="cpu", weights_only=True)
    for key in ("state_dict", "model"):  # training checkpoints nest the weights
        if isinstance(state, dict) and isinstance(state.get(key), dict):
            state = state[key]
    return {name: value.float().numpy() for name, value in state.items() if hasattr(value, "float")}


def bpe_files(folder: Path) -> Path:
    """The folder inside the release holding its Qwen3 tokenizer's vocab.json and merges.txt."""
    for vocab in sorted(folder.rglob("vocab.json")):
        if (vocab.parent / "merges.txt").is_file():
            return vocab.parent
    raise FileNotFoundError(
        f"{folder} has no vocab.json with a merges.txt beside it (the Qwen3 tokenizer): {REDOWNLOAD}"
    )


def write_hf_folder(folder: Path, out: Path, config: Optional[dict] = None) -> Path:
    """The original release at `folder` rewritten as an "-hf" folder at `out` (float32 safetensors).
    `config`: its "-hf" config.json (default: Fun-ASR-Nano-2512's; the loader checks every size)."""
    config = config or release_config()
    audio = config["audio_config"]
    weights = hf_names(read_original(folder), audio["num_hidden_layers"] - audio["num_timestamp_prediction_layers"])
    bpe = bpe_files(folder)
    out.mkdir(parents=True, exist_ok=True)
    mx.save_safetensors(str(out / "model.safetensors"), {k: mx.array(v) for k, v in weights.items()}, {"format": "pt"})
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    for name in COPIED_FILES:
        shutil.copyfile(RELEASE_DIR / name, out / name)
    write_tokenizer_json(out, bpe)
    return out


def hf_from_original(folder: Path) -> tuple[Path, tempfile.TemporaryDirectory]:
    """An "-hf" copy of the original release in a temporary folder (removed with the returned handle)."""
    handle = tempfile.TemporaryDirectory(prefix="funasr-hf-")
    return write_hf_folder(folder, Path(handle.name) / "hf"), handle
