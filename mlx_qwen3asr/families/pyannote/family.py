"""The diarizer's entry in the registry (families/registry.py): how its release folder is told apart, fetched
and loaded. Its release is not a config.json with safetensors but pyannote's own folder (config.yaml,
two torch checkpoints read without torch, the PLDA's .npz files), so the family loads itself."""

from pathlib import Path
from typing import Optional

from .config import DIARIZER_FILES, is_diarizer_folder
from .pipeline import Diarizer

KIND = "pyannote_speaker_diarization"  # the registry key (registry.FAMILIES)
DOWNLOAD_PATTERNS = DIARIZER_FILES  # what a hub download of the release fetches


def folder_kind(folder: Path) -> Optional[str]:
    """KIND when the folder's config.yaml names pyannote's speaker-diarization pipeline, else None."""
    return KIND if is_diarizer_folder(folder) else None


def load_folder(folder: Path) -> Diarizer:
    """The release folder as a Diarizer (always float32: its small convolutions and LSTMs gain nothing
    from half precision on any backend, and the goldens are float32)."""
    return Diarizer.from_folder(folder)
