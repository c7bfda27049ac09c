"""Our package as of a git revision, and the BLAS environment that revision chooses for itself.

    source_tree("84e21b3", cache) -> cache/src-<sha>/mlx_qwen3asr   (git archive, extracted once)
    ours_environment(root, "mkl+openblas", base) -> base + LD_PRELOAD etc. as root's blas.py sets them,
        and PYTHONPATH root, then this checkout (for `scripts`); run the worker with cwd=root

A side "ours@REV" must run on REV's own BLAS set-up: its blas.py and its router (built from its own
blas_router.c), not today's, or a change to either would compare with itself.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def source_tree(rev: str, cache_dir: Path) -> Path:
    """The package as of git revision `rev`, extracted once into cache_dir."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], capture_output=True, text=True, check=True)
    folder = cache_dir / f"src-{sha.stdout.strip()[:12]}"
    if not (folder / "mlx_qwen3asr").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "mlx_qwen3asr"], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


CHOOSE = """import importlib, json, os, sys
blas = importlib.import_module(sys.argv[2])
chosen_library, preload_environment = blas.chosen_library, blas.preload_environment
print(json.dumps(preload_environment(sys.argv[1] or chosen_library() or "reference", dict(os.environ))))"""


def blas_module(root: Path) -> str:
    """Where the tree at `root` keeps its BLAS choice: mlx_qwen3asr/runtime/ since issue 39, the package root before."""
    return (
        "mlx_qwen3asr.runtime.blas" if (root / "mlx_qwen3asr" / "runtime" / "blas.py").exists() else "mlx_qwen3asr.blas"
    )


def ours_environment(root: Path, blas: str, base: dict) -> dict:
    """`base` with BLAS `blas` ("": the tree's own choice) preloaded the way the package at `root` does it."""
    # Trees older than preload_environment() only ever preloaded one library: today's code does that the same way.
    source = root / Path(*blas_module(root).split(".")).with_suffix(".py")
    chooser = root if "def preload_environment" in source.read_text() else ROOT
    env = {**base, "PYTHONPATH": str(chooser)}
    # cwd: `python -c` looks in the working directory first
    command = [sys.executable, "-c", CHOOSE, blas, blas_module(chooser)]
    done = subprocess.run(command, env=env, cwd=chooser, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the package at {root} could not set up BLAS {blas or '(its choice)'}: {done.stderr.strip()}")
    return {**json.loads(done.stdout), "PYTHONPATH": os.pathsep.join(dict.fromkeys([str(root), str(ROOT)]))}
