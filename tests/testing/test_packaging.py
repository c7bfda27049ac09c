"""The installed package: every folder is packaged, and every documented `python -m` runs from it."""

import re
import subprocess
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_pyproject_lists_every_package_folder():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    inits = [*(ROOT / "mlx_qwen3asr").rglob("__init__.py"), *(ROOT / "mlx_qwen3asr_app").rglob("__init__.py")]
    folders = {".".join(init.parent.relative_to(ROOT).parts) for init in inits}
    assert folders == listed, f"pyproject.toml packages differ from the package folders: {folders ^ listed}"


# `python -m NAME`, `python3 -m NAME` and scripts' `"$PYTHON" -m NAME`
RUN_MODULE = re.compile(r"(?:python3?|PYTHON\"?)\s+-m\s+([A-Za-z_][\w.]*)")
FINDS_MAIN = """
import importlib.util, sys
for name in sys.argv[1:]:
    spec = importlib.util.find_spec(name)
    if spec is not None and spec.submodule_search_locations is not None:  # a package runs its __main__
        spec = importlib.util.find_spec(name + ".__main__")
    if spec is None:
        print(name)
"""


def test_every_python_dash_m_command_in_the_docs_help_and_scripts_runs_in_an_installed_package(tmp_path):
    """Named in README, docs/, scripts/ or any docstring, help text or message of the package: each
    `python -m X` must run where the package is installed, not only from the checkout's root."""
    files = [
        ROOT / "README.md",
        *(ROOT / "docs").glob("*.md"),
        *(p for p in (ROOT / "scripts").rglob("*") if p.is_file()),
    ]
    files += [*(ROOT / "mlx_qwen3asr").rglob("*.py"), *(ROOT / "mlx_qwen3asr_app").rglob("*.py")]
    named: dict[str, set[str]] = {}
    for file in files:
        for name in RUN_MODULE.findall(file.read_text(encoding="utf-8", errors="replace")):
            if name.startswith("scripts."):  # the developer tools: run from the checkout's root, as documented
                continue
            named.setdefault(name.rstrip("."), set()).add(str(file.relative_to(ROOT)))
    assert {"mlx_qwen3asr", "mlx_qwen3asr_app", "mlx_qwen3asr.cli.convert"} <= set(named), sorted(named)
    # -I: neither the checkout (the current folder) nor $PYTHONPATH is on sys.path, as for a user
    run = subprocess.run(
        [sys.executable, "-I", "-c", FINDS_MAIN, *sorted(named)], capture_output=True, text=True, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    missing = {name: sorted(named[name]) for name in run.stdout.split()}
    assert not missing, f"`python -m X` that does not run once installed, and where it is named: {missing}"
