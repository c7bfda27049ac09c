"""Reading a checkpoint's JSON files (config.json, vocab.json, tokenizer_config.json, ...), and the one
way to tell the user how to replace any damaged checkpoint file.

    path -> text (UTF-8) -> dict, or ValueError naming the file, where it breaks, and the fix

A download cut off half-way leaves a file that ends mid-string; json's own message
("Unterminated string starting at: line 1 column 1388416") names neither the file nor the cure.
A leaf module: stdlib only.
"""

import json
from pathlib import Path

REDOWNLOAD = "download the model again (or restore the file)"
HUB_CACHE_PREFIX = "models--"  # huggingface_hub's cache: HUB/models--Org--Name/snapshots/<revision>/FILE


def redownload(path: Path) -> str:
    """The fix for a damaged file of a model folder. A file of a cached hub snapshot names the command
    that replaces it: the hub cache keeps a file it already has, so `load` alone would not."""
    for folder in Path(path).parents:
        if folder.name.startswith(HUB_CACHE_PREFIX) and (folder / "snapshots").is_dir():
            repo = folder.name[len(HUB_CACHE_PREFIX) :].replace("--", "/")
            return f"download the model again (hf download {repo} --force-download, or delete {folder})"
    return REDOWNLOAD


def corrupt(path: Path, why: object) -> ValueError:
    """The one-line error for a cut-off or corrupt checkpoint file."""
    return ValueError(f"{path} is cut off or corrupt ({why}): {redownload(path)}")


def read_json(path: Path) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise corrupt(path, e) from e
