"""Reading a checkpoint's JSON files (config.json, vocab.json, tokenizer_config.json, ...).

    path -> text (UTF-8) -> dict, or ValueError naming the file, where it breaks, and the fix

A download cut off half-way leaves a file that ends mid-string; json's own message
("Unterminated string starting at: line 1 column 1388416") names neither the file nor the cure.
A leaf module: stdlib only.
"""

import json
from pathlib import Path

REDOWNLOAD = "download the model again (or restore the file)"


def read_json(path: Path) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path} is cut off or corrupt ({e}): {REDOWNLOAD}") from e
