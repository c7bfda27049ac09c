"""The tree's layers, as docs/architecture.md states them: imports run downward only, no folder imports
another of its own layer, no family imports another family's folder (but the exceptions the doc names),
and there is no import circle. Every import counts: module level, inside functions, under TYPE_CHECKING."""

import ast
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "mlx_qwen3asr"
DOC = ROOT / "docs" / "architecture.md"


def fenced(name: str) -> list[str]:
    """The lines of docs/architecture.md's ```name block."""
    match = re.search(rf"```{name}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert match, f"docs/architecture.md has no ```{name} block"
    return [line.strip() for line in match.group(1).splitlines() if line.strip()]


def layers() -> dict[str, int]:
    """Top-level name (a folder, a module, "__init__" for the face) -> its layer, 0 at the bottom."""
    return {name: rank for rank, line in enumerate(fenced("layers")) for name in line.split()}


def family_exceptions() -> set[tuple[str, str]]:
    return {tuple(part.strip() for part in line.split("->")) for line in fenced("family-imports")}


def modules(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the package under `root`."""
    found = {}
    for path in (root / PACKAGE).rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (the deepest one each import names)."""
    found = modules(root)

    def deepest(name: str) -> str:
        while name not in found:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                if target.split(".")[0] != PACKAGE:
                    continue
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    targets.add(full if full in found else deepest(target))
            elif isinstance(node, ast.Import):
                targets |= {deepest(a.name) for a in node.names if a.name.split(".")[0] == PACKAGE}
        graph[name] = targets - {name}
    return graph


def top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def family(module: str, root: Path) -> str:
    """The family folder a module belongs to ("" outside one)."""
    parts = module.split(".")
    inside = len(parts) > 2 and parts[1] == "families" and (root / PACKAGE / "families" / parts[2]).is_dir()
    return parts[2] if inside else ""


def violations(root: Path) -> list[str]:
    """Every import that runs upward, across a layer, or from one family's folder into another's."""
    rank, allowed = layers(), family_exceptions()
    found = []
    for source, targets in import_graph(root).items():
        for target in sorted(targets):
            a, b = top(source), top(target)
            if a != b and rank[b] >= rank[a]:
                found.append(f"{source} -> {target} ({b} is not below {a})")
            mine, theirs = family(source, root), family(target, root)
            if mine and theirs and mine != theirs and (mine, theirs) not in allowed:
                found.append(f"{source} -> {target} (family {mine} imports family {theirs})")
    return sorted(found)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_every_folder_and_top_module_has_a_layer():
    names = {top(module) for module in modules(ROOT)}
    assert names <= set(layers()), f"not in docs/architecture.md's layers: {sorted(names - set(layers()))}"


def test_imports_run_downward_only():
    assert violations(ROOT) == []


def test_there_is_no_import_circle():
    assert circles(import_graph(ROOT)) == []


@pytest.fixture
def copy_of_the_package(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / PACKAGE, tmp_path / PACKAGE, ignore=shutil.ignore_patterns("*.safetensors", "__pycache__"))
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    return tmp_path


def add_line(root: Path, module: str, line: str) -> None:
    path = root / PACKAGE / module
    path.write_text(path.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")


def test_the_check_fails_when_an_upward_import_is_added(copy_of_the_package: Path):
    root = copy_of_the_package
    add_line(root, "audio/io.py", "from ..decode.transcribe import transcribe")
    add_line(root, "layers/cache.py", "if TYPE_CHECKING:\n    from ..streaming.live import LiveSession")
    add_line(root, "families/registry.py", "def late():\n    from ..loading import load")
    assert violations(root) == [
        f"{PACKAGE}.audio.io -> {PACKAGE}.decode.transcribe (decode is not below audio)",
        f"{PACKAGE}.families.registry -> {PACKAGE}.loading.load (loading is not below families)",
        f"{PACKAGE}.layers.cache -> {PACKAGE}.streaming.live (streaming is not below layers)",
    ]


def test_the_check_fails_when_a_family_imports_another(copy_of_the_package: Path):
    root = copy_of_the_package
    add_line(root, "families/fun_asr_nano/model.py", "from ..qwen3_asr.encoder import AudioEncoder as _E")
    assert violations(root) == [
        f"{PACKAGE}.families.fun_asr_nano.model -> {PACKAGE}.families.qwen3_asr.encoder "
        "(family fun_asr_nano imports family qwen3_asr)"
    ]


def test_the_check_fails_when_a_folder_imports_one_of_its_own_layer(copy_of_the_package: Path):
    root = copy_of_the_package
    add_line(root, "vad/energy.py", "from ..options import DecodeOptions")
    assert violations(root) == [f"{PACKAGE}.vad.energy -> {PACKAGE}.options (options is not below vad)"]


def test_a_circle_is_found(copy_of_the_package: Path):
    root = copy_of_the_package
    add_line(root, "audio/split.py", "from .features import log_mel_spectrogram as _mel")
    add_line(root, "audio/features.py", "from .split import split_audio as _split")
    assert circles(import_graph(root)) == [[f"{PACKAGE}.audio.features", f"{PACKAGE}.audio.split"]]
