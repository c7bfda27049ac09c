"""The installed package: every folder is packaged."""

from pathlib import Path

import tomllib

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
