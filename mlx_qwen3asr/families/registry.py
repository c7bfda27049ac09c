"""The registry: what a model folder's files say -> its family's module, in the shape of mlx-lm's
`_get_classes` (one table; the family's module is imported when a folder names it).

    folder -> kind (folder_kind: config.json's model_type, the aligner's in thinker_config; without
              one, the family whose own `folder_kind(folder)` knows it, such as pyannote's config.yaml)
    kind -> FAMILIES[kind] -> module with Model, ModelArgs, checkpoint_names [, ORIGINAL, load_folder]

A family module gives `Model` (the class; its `task` says what it is for: "transcribe" for a recogniser
(families/recogniser.py's Protocol), "align" for the aligner), `ModelArgs.from_dict(config)` and
`checkpoint_names(weights)` (the stored names -> the names its `sanitize` takes). A new family is a new
folder plus one line below: the registry asks each family module what it knows (folder_kind,
DOWNLOAD_PATTERNS, ORIGINAL, load_folder), and no code outside families/ names a family.
"""

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

from ..text.jsonfile import read_json

FAMILIES = {
    "qwen3_asr": "mlx_qwen3asr.families.qwen3_asr.model",  # Qwen/Qwen3-ASR-0.6B, -1.7B (official and "-hf" layouts)
    "qwen3_forced_aligner": "mlx_qwen3asr.families.aligner.model",  # Qwen/Qwen3-ForcedAligner-0.6B
    "fun_asr_nano": "mlx_qwen3asr.families.fun_asr_nano.model",  # FunAudioLLM/Fun-ASR-Nano-2512-hf
    "pyannote_speaker_diarization": "mlx_qwen3asr.families.pyannote.family",  # pyannote/speaker-diarization-community-1
    "sensevoice_small": "mlx_qwen3asr.families.sensevoice.family",  # FunAudioLLM/SenseVoiceSmall (release or converted)
    "paraformer": "mlx_qwen3asr.families.paraformer.family",  # funasr/paraformer-zh (Paraformer-large; release or converted)
}
DEFAULT_KIND = "qwen3_asr"  # a config.json without model_type (early Qwen3-ASR conversions)
TASKS = {
    "transcribe": "a speech recogniser (Qwen3-ASR or Fun-ASR-Nano)",
    "align": "a forced aligner",
    "diarize": "a speaker diarizer (pyannote/speaker-diarization-community-1)",
}


def model_type(config: dict[str, Any]) -> str:
    """The registry key config.json names: its model_type (DEFAULT_KIND when absent); under a top level
    that says qwen3_asr, thinker_config.model_type when that is a key (the aligner's official layout)."""
    thinker = config.get("thinker_config")
    inner = thinker.get("model_type") if isinstance(thinker, dict) else None
    top = config.get("model_type", DEFAULT_KIND)
    return inner if top == DEFAULT_KIND and inner in FAMILIES else top


def family_modules() -> list[ModuleType]:
    """Every family's module, in the table's order (imported here)."""
    return [importlib.import_module(name) for name in FAMILIES.values()]


def folder_kind(folder: Path) -> Optional[str]:
    """The registry key a folder's files name: config.json's model_type, else the kind a family reads in
    files of its own (a family module's `folder_kind(folder)`: pyannote's config.yaml), else None."""
    if (folder / "config.json").is_file():
        return model_type(read_json(folder / "config.json"))
    for module in family_modules():
        read = getattr(module, "folder_kind", None)
        if read is not None and (kind := read(folder)) is not None:
            return kind
    return None


def self_loading(folder: Path) -> Optional[ModuleType]:
    """The family module of a folder whose family loads it itself (`load_folder(folder)`: a release that
    is not config.json + safetensors, such as pyannote's diarizer), or None for the common road."""
    kind = folder_kind(folder)
    module = importlib.import_module(FAMILIES[kind]) if kind in FAMILIES else None
    return module if hasattr(module, "load_folder") else None


def download_patterns() -> tuple[str, ...]:
    """What a hub download fetches beyond the common files (layout.DOWNLOAD_PATTERNS): each family's own."""
    return tuple(p for module in family_modules() for p in getattr(module, "DOWNLOAD_PATTERNS", ()))


def family_module(config: dict[str, Any]) -> ModuleType:
    """The module of the family config.json names (never guessed from sizes or tensor names)."""
    kind = model_type(config)
    if kind not in FAMILIES:
        raise ValueError(
            f"config.json has model_type {kind!r}: this package reads {', '.join(map(repr, FAMILIES))} "
            "(Qwen/Qwen3-ASR-0.6B, Qwen/Qwen3-ForcedAligner-0.6B, FunAudioLLM/Fun-ASR-Nano-2512-hf)"
        )
    return importlib.import_module(FAMILIES[kind])


def original_release(folder: Path) -> Optional[ModuleType]:
    """The ORIGINAL reader of the family whose original (not yet converted) release `folder` is, if any:
    it has is_original(folder), refusal(folder) and hf_from_original(folder)."""
    for module in family_modules():
        original = getattr(module, "ORIGINAL", None)
        if original is not None and original.is_original(folder):
            return original
    return None


def require_task(model: Any, task: str, what: str) -> None:
    """ValueError, one line, when `model` (given as `what`, e.g. "--model X") is not for `task`."""
    has = getattr(model, "task", None)
    if has != task:
        raise ValueError(
            f"{what} is {TASKS.get(has, 'not a model of this package')}, not {TASKS[task]}: "
            f"pass {TASKS[task]} there" + (" (an aligner goes to --aligner / aligner=)" if has == "align" else "")
        )
