"""The non-weight files of the Fun-ASR-Nano-2512 "-hf" release (hf/, see its SOURCE.md): its config.json,
processor and tokenizer settings, and how its 11 MB tokenizer.json is rebuilt from Qwen3's BPE files.
Used by the converter of the original FunASR release and by the random-checkpoint writer."""

import json
from pathlib import Path

RELEASE_DIR = Path(__file__).resolve().parent / "hf"
# Copied as they are next to the weights (config.json is written from a dict, tokenizer.json rebuilt).
COPIED_FILES = ("generation_config.json", "processor_config.json", "chat_template.jinja", "tokenizer_config.json")


def release_config() -> dict:
    """Fun-ASR-Nano-2512's "-hf" config.json."""
    return json.loads((RELEASE_DIR / "config.json").read_text())


def write_tokenizer_json(out: Path, bpe_dir: Path) -> None:
    """tokenizer.json as transformers 5.24 writes it for Qwen3-0.6B: the template's BPE filled with
    bpe_dir's vocab.json (in id order) and merges.txt (each line split at its space)."""
    tokenizer = json.loads((RELEASE_DIR / "tokenizer.template.json").read_text(encoding="utf-8"))
    vocab = json.loads((bpe_dir / "vocab.json").read_text(encoding="utf-8"))
    lines = (bpe_dir / "merges.txt").read_text(encoding="utf-8").splitlines()
    tokenizer["model"]["vocab"] = dict(sorted(vocab.items(), key=lambda item: item[1]))
    tokenizer["model"]["merges"] = [line.split(" ") for line in lines if line and not line.startswith("#version")]
    (out / "tokenizer.json").write_text(json.dumps(tokenizer, indent=2, ensure_ascii=False), encoding="utf-8")
