"""The installed package: every folder is packaged, and module paths from before the regrouping work."""

import importlib
from pathlib import Path

import tomllib

import mlx_qwen3asr
from mlx_qwen3asr._compat import MOVED

ROOT = Path(__file__).resolve().parents[2]


def test_pyproject_lists_every_package_folder():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "mlx_qwen3asr").rglob("__init__.py")}
    folders |= {
        "mlx_qwen3asr_app" + "".join("." + p for p in init.parent.relative_to(ROOT / "app").parts)
        for init in (ROOT / "app").rglob("__init__.py")
    }
    assert folders == listed, f"pyproject.toml packages differ from the package folders: {folders ^ listed}"


def test_old_module_paths_give_the_moved_modules_themselves():
    for old, new in MOVED.items():
        moved = importlib.import_module(f"mlx_qwen3asr.{new}")
        assert importlib.import_module(f"mlx_qwen3asr.{old}") is moved, old


def test_old_from_imports_still_work():
    from mlx_qwen3asr.encoder import n_audio_tokens

    from mlx_qwen3asr.convert import Recipe, convert  # noqa: F401  (was convert.py)
    from mlx_qwen3asr.model import Qwen3ASR  # noqa: F401  (was model.py)
    from mlx_qwen3asr.streaming import StreamingOptions, StreamingTranscriber  # noqa: F401
    from mlx_qwen3asr.transcribe import encode_audio, split_audio  # noqa: F401

    assert n_audio_tokens(1000) == 130
    assert mlx_qwen3asr.audio.SAMPLE_RATE == 16000
