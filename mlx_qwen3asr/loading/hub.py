"""Where a model comes from: a local folder as is, anything else a Hugging Face hub repo id (downloaded,
or found in the hub's cache)."""

import os
from pathlib import Path
from typing import Union

from ..families.registry import download_patterns
from .layout import DOWNLOAD_PATTERNS


def resolve_model_path(path_or_repo: Union[str, Path]) -> Path:
    """A local folder as is; anything else is treated as a hub repo id and downloaded (or found cached)."""
    path = Path(path_or_repo).expanduser()
    if path.is_dir():
        return path
    if path.exists() or str(path_or_repo).startswith((".", "/", "~")):
        raise FileNotFoundError(f"Model folder not found: {path} (expected a folder with config.json)")
    return _download(str(path_or_repo))


def _download(repo_id: str) -> Path:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError, RepositoryNotFoundError

    try:
        return Path(snapshot_download(repo_id, allow_patterns=[*DOWNLOAD_PATTERNS, *download_patterns()]))
    except RepositoryNotFoundError as e:
        raise FileNotFoundError(
            f"'{repo_id}' is neither a local folder nor a model on the Hugging Face hub. "
            "Pass the path of a downloaded model folder, or a repo id such as Qwen/Qwen3-ASR-0.6B."
        ) from e
    except LocalEntryNotFoundError as e:
        offline = os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0")
        why = "HF_HUB_OFFLINE is set" if offline else "the hub could not be reached"
        raise FileNotFoundError(
            f"Cannot get '{repo_id}': {why} and it is not in the local cache "
            f"({os.environ.get('HF_HOME', '~/.cache/huggingface')}). Download it where there is a network "
            f"(hf download {repo_id} --local-dir FOLDER) and pass the local folder instead."
        ) from e
