"""Many files through the batched engine, one outcome each: decode_files(sources, spec) -> Decoded...

    sources: paths (read here, in order) or waves already read (the CLI's, for its progress bar)
    -> groups of up to batch_size files or batch_size x model.chunk_seconds of audio (memory stays bounded)
    -> transcribe_checked(group, spec's model, options, aligner, diarizer, vad): each text the one
       `transcribe` gives the file alone; a group that fails is decoded again one file at a time, so a
       bad file fails alone
    -> Decoded(index, result) or Decoded(index, error=the one-line reason), in the order of the sources

Used in this process (LocalRunner, the CLI without -o) and in each Ray worker (ray_worker.py).
"""

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from ..audio.io import SAMPLE_RATE, load_audio
from ..decode.batch_size import default_batch_size
from ..decode.transcribe import transcribe_checked
from ..result import Transcription
from .plan import PathLike, one_line
from .spec import FolderSpec

# What decoding a file can raise: a bad input (NaN samples; MLX's errors are ValueError and
# RuntimeError), ImportError (aligning Japanese without its word segmenter). Each fails its file alone.
DECODE_FAULTS = (ValueError, RuntimeError, ImportError)


@dataclass(frozen=True)
class Decoded:
    """One source's outcome: its transcription, or (result None) the one-line reason it failed."""

    index: int  # in the sources given
    result: Optional[Transcription] = None
    error: str = ""
    seconds: float = 0.0  # of audio (0 when it failed)

    def __post_init__(self):
        assert (self.result is None) != (not self.error), "a result or an error, never both"


def not_a_file(path: PathLike) -> Optional[str]:
    """Why `path` cannot be read as an audio file without opening it (a FIFO, a device, a socket), or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # reading it says why
    if stat.S_ISREG(mode):
        return None
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file"
    return f"Cannot read {os.fsdecode(path)}: it is {kind}, not a regular file; it was skipped unopened"


def read_wave(source: Union[PathLike, np.ndarray]) -> Union[np.ndarray, str]:
    """The source's 16 kHz samples, or the one-line reason it cannot be read."""
    if isinstance(source, np.ndarray):
        return source
    if (reason := not_a_file(source)) is not None:
        return reason
    try:
        return load_audio(source)
    except (ValueError, OSError) as e:
        return one_line(e)


def decode_files(
    sources: Sequence[Union[PathLike, np.ndarray]],
    spec: FolderSpec,
    on_progress: Optional[Callable[[float], None]] = None,
) -> Iterator[Decoded]:
    """A Decoded for every source, in order, decoded with `spec` (its models loaded and its options
    checked: spec.loaded()).
    `on_progress(seconds)`: after each wave of chunks, the seconds of audio it finished."""
    batch_size = spec.batch_size or default_batch_size(spec.model)
    group: list[tuple[int, np.ndarray]] = []
    for i, source in enumerate(sources):
        wave = read_wave(source)
        if isinstance(wave, str):
            yield Decoded(i, error=wave)
            continue
        group.append((i, wave))
        if (
            len(group) >= batch_size
            or sum(len(w) for _, w in group) >= batch_size * spec.model.chunk_seconds * SAMPLE_RATE
        ):
            yield from decode_group(group, spec, batch_size, on_progress)
            group = []
    yield from decode_group(group, spec, batch_size, on_progress)


def decode_group(
    group: list[tuple[int, np.ndarray]], spec: FolderSpec, batch_size: int, on_progress=None
) -> Iterator[Decoded]:
    """A group through the batched engine; when it fails, each file alone, so one bad file fails alone."""
    if not group:
        return
    try:
        results = transcribe_checked(  # spec.loaded() checked the models and the options
            [wave for _, wave in group],
            spec.model,
            [spec.options] * len(group),
            batch_size=batch_size,
            aligner=spec.aligner,
            diarizer=spec.diarizer,
            vad=spec.vad,
            on_progress=on_progress,
        )
    except DECODE_FAULTS as e:
        if len(group) == 1:
            yield Decoded(group[0][0], error=one_line(e))
            return
        for item in group:  # again, alone (and off the progress count: their audio was counted)
            yield from decode_group([item], spec, batch_size)
        return
    for (i, wave), result in zip(group, results):
        yield Decoded(i, result, seconds=len(wave) / SAMPLE_RATE)
