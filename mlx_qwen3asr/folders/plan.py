"""Inputs -> jobs: each audio file with the outputs it gets under the out folder (files.py runs them).

    "talks/"          a folder: searched recursively for audio (AUDIO_EXTENSIONS; hidden files left
                      out), each file's outputs at out/<its path below talks/>
    "@list.txt"       a manifest: one path a line (relative to the list's folder; blank lines and
                      "# ..." skipped), outputs at out/<path below the entries' common parent>
    "a.wav" "b/c.mp3" loose files: outputs at out/<path below their common parent>
    -> PlannedFile(source, outputs): the extension replaced by each format's, in the formats' order

Two inputs that would share an output, or an output that would overwrite an input, are refused up
front (InputError, one line): nothing is loaded or written before the plan stands. A file named
twice (a folder and a file in it) is one job. A manifest's missing entries stay jobs (they fail
when read, and are recorded); a missing file or folder named directly is refused.
"""

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from ..outputs.formats import FORMATS

# What a folder search picks up (case-insensitive); files named directly are tried whatever their name.
AUDIO_EXTENSIONS = frozenset("wav mp3 m4a flac ogg oga opus aac wma webm mp4 mkv mka mov aif aiff caf amr 3gp".split())
PathLike = Union[str, os.PathLike]


class InputError(ValueError):
    """The inputs cannot be planned (a missing file, two inputs sharing an output): one line."""


@dataclass(frozen=True)
class PlannedFile:
    """One audio file of a run and the outputs it gets (none when the transcripts are printed)."""

    source: Path  # absolute (symlinks kept)
    outputs: tuple[Path, ...]  # one per format, in the order of the formats


def one_line(error: BaseException) -> str:
    """An exception's message on one line (ffmpeg's may span several)."""
    return " ".join(str(error).split()) or type(error).__name__


def audio_in(folder: Path) -> list[Path]:
    """Audio files under `folder`, sorted, hidden files and folders (".*", e.g. macOS "._x.wav") left out."""
    found = []
    for parent, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        found += [
            Path(parent) / name
            for name in sorted(files)
            if not name.startswith(".") and name.rpartition(".")[2].lower() in AUDIO_EXTENSIONS
        ]
    return found


def read_manifest(path: Path) -> list[Path]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read the manifest {path}: {one_line(e)}") from e
    entries = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return [Path(os.path.abspath(path.parent / entry)) for entry in entries]


def with_common_root(files: list[Path]) -> list[tuple[Path, Path]]:
    root = Path(os.path.commonpath([f.parent for f in files])) if files else Path()
    return [(f, root) for f in files]


def expand_inputs(inputs: Iterable[PathLike]) -> list[tuple[Path, Path]]:
    """(audio file, the folder its outputs mirror it from) for every input. A manifest's missing
    entries are kept (they fail when read, and are recorded); a missing named file is refused."""
    pairs: list[tuple[Path, Path]] = []
    loose: list[Path] = []
    for item in inputs:
        text = os.fspath(item)
        path = Path(os.path.abspath(text.removeprefix("@")))
        if text.startswith("@"):
            pairs += with_common_root(read_manifest(path))
        elif path.is_dir():
            found = audio_in(path)
            if not found:
                raise InputError(f"no audio files in {text} (looked for .{', .'.join(sorted(AUDIO_EXTENSIONS))})")
            pairs += [(f, path) for f in found]
        elif path.is_file():
            loose.append(path)
        else:
            raise InputError(f"no such file or folder: {text}")
    return pairs + with_common_root(loose)


def plan_files(inputs: Iterable[PathLike], out_dir: PathLike, formats: Sequence[str]) -> list[PlannedFile]:
    """Every input once, with its outputs; InputError when two inputs (or an input and an output)
    would share a path."""
    out, jobs = Path(os.path.abspath(out_dir)), []
    owners: dict[Path, Path] = {}  # output -> its input
    seen: set[Path] = set()
    for source, root in expand_inputs(inputs):
        if source in seen:
            continue  # named twice (a folder and a file in it): once
        seen.add(source)
        relative = source.relative_to(root)
        outputs = tuple(out / relative.parent / f"{relative.stem}.{f}" for f in formats)
        for output in outputs:
            other = owners.setdefault(output, source)
            if other != source:
                raise InputError(
                    f"{other} and {source} would both be written to {output}: rename one, or transcribe them separately"
                )
        jobs.append(PlannedFile(source, outputs))
    clobbered = next((job.source for job in jobs if job.source in owners), None)
    if clobbered is not None:
        raise InputError(f"{clobbered} is an input and would be overwritten by an output: choose another -o folder")
    return jobs


def checked_formats(formats: Sequence[str]) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys([formats] if isinstance(formats, str) else formats))
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown or not chosen:
        raise InputError(f"unknown output format {unknown or '(none)'}: use some of {', '.join(FORMATS)}")
    return chosen
