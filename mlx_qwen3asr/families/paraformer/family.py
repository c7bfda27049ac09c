"""What the registry (families/registry.py) finds for Paraformer: its model, args, and how its folders load."""

from .config import ParaformerArgs as ModelArgs
from .model import Paraformer as Model
from .release import DOWNLOAD_PATTERNS, folder_kind, load_folder

__all__ = ["DOWNLOAD_PATTERNS", "Model", "ModelArgs", "checkpoint_names", "folder_kind", "load_folder"]


def checkpoint_names(weights):
    """Stored names -> the names sanitize takes: unchanged (sanitize maps release names itself)."""
    return dict(weights)
