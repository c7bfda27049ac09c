"""A first run that just works: every command the README and docs/ show runs as written in a fresh clone.

After `scripts/run.sh` (or any wrapper) has built `.venv`, nothing is activated in the user's shell,
so README commands must be the wrappers in scripts/ or name `.venv/bin/python` themselves.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRAPPERS = sorted((ROOT / "scripts").glob("*.sh"))
ENTRY_WRAPPERS = {
    "run.sh": "mlx_qwen3asr",
    "dictate.sh": "mlx_qwen3asr_app",
    "convert.sh": "mlx_qwen3asr.cli.convert",
    "serve.sh": "mlx_qwen3asr.server",
}


@pytest.mark.parametrize("name, module", ENTRY_WRAPPERS.items())
def test_each_command_has_a_wrapper_that_sets_up_and_runs_it(name, module):
    script = (ROOT / "scripts" / name).read_text()
    assert (ROOT / "scripts" / name).stat().st_mode & 0o111, f"scripts/{name} must be executable"
    assert 'source "$(dirname "$0")/env.sh"' in script, f"scripts/{name} must set up .venv (and OpenBLAS) first"
    assert f'exec "$PYTHON" -m {module} "$@"' in script, f"scripts/{name} must run {module} with every argument"
    run = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0 and "usage:" in run.stdout, f"{module} --help: {run.stderr}"


# The user's guide: the README and the docs it links to, one topic a file.
GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# Guides whose Python examples run as written here (the others talk to a running server or to a microphone).
RUNNABLE = [ROOT / "README.md", *(ROOT / "docs" / name for name in ("transcribing.md", "streaming.md", "vad.md"))]


def _shell_commands(guide: Path) -> list[str]:
    blocks = re.findall(r"```(?:bash|sh|shell)\n(.*?)```", guide.read_text(encoding="utf-8"), flags=re.S)
    return [
        line.strip()
        for block in blocks
        for line in block.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def test_commands_in_the_readme_and_docs_need_no_activated_environment():
    needs_venv = re.compile(r"^(?:[A-Z_]+=\S+\s+)*(python3?|pip|mlx-qwen3asr\S*|pytest)\b")
    bad = [(g.name, c) for g in GUIDES for c in _shell_commands(g) if needs_venv.match(c)]
    assert not bad, f"these commands fail unless .venv is activated; use scripts/*.sh or .venv/bin/python: {bad}"


@pytest.mark.parametrize("guide", GUIDES, ids=lambda g: g.name)
def test_the_readme_and_docs_point_only_to_files_that_exist_in_a_clone(guide):
    text = guide.read_text(encoding="utf-8")
    missing = [ref for ref in re.findall(r"\]\(([^)#:]+)\)", text) if not (guide.parent / ref).exists()]
    missing += [w for w in re.findall(r"scripts/[\w.]+\.(?:sh|py)", text) if not (ROOT / w).exists()]
    missing += re.findall(r"`(\.\./[^`]*)`", text)  # outside the repository: never in a clone
    assert not missing, f"{guide.name} points to paths a clone does not have: {missing}"


def test_the_readme_links_every_doc():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    unlinked = [g.name for g in GUIDES[1:] if f"](docs/{g.name})" not in readme]
    assert not unlinked, f"docs the README does not link to: {unlinked}"


def _shell_list(script: Path, name: str) -> set[str]:
    match = re.search(rf'^{name}="([^"]*)"', script.read_text(), flags=re.M)
    assert match, f"{name} not found in {script}"
    return set(match.group(1).split())


def test_the_set_up_script_installs_every_debian_package_the_tests_need():
    needed = _shell_list(ROOT / "tests/app/virtual_mic/start.sh", "PACKAGES")  # the virtual microphone's
    installed = _shell_list(ROOT / "scripts/env.sh", "DEBIAN_PACKAGES")
    assert needed <= installed, f"scripts/env.sh must install {sorted(needed - installed)}: tests never install"


def test_every_python_example_in_the_readme_runs_as_written(tiny_checkpoint, sensevoice_dir, tmp_path):
    """Each block runs from the clone's root, the hub ids swapped for random checkpoints (no downloads here)."""
    blocks = {g: re.findall(r"```python\n(.*?)```", g.read_text(encoding="utf-8"), flags=re.S) for g in RUNNABLE}
    assert len(blocks[ROOT / "README.md"]) >= 3, "the API, the files and the live examples"
    for block in [b for guide_blocks in blocks.values() for b in guide_blocks]:
        code = block.replace('"Qwen/Qwen3-ASR-0.6B"', repr(str(tiny_checkpoint)))
        code = code.replace('"FunAudioLLM/SenseVoiceSmall"', repr(str(sensevoice_dir))).replace(
            "/tmp/tiny-asr", str(tmp_path / "t")
        )
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert run.returncode == 0, f"README example failed:\n{block}\n{run.stderr[-1500:]}"
