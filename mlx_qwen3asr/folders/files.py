"""Folders of audio in, transcripts out, resumable: `transcribe_files(inputs, model, out_dir)`.

    inputs: files, folders (searched recursively for audio), manifests "@list.txt" (one path a line,
            relative to the manifest's folder; blank lines and "# ..." skipped)
    -> plan.py: each audio file with its outputs, mirrored under out_dir: out_dir/<its path relative to
       the folder given, or to the common parent of a manifest's entries or of the loose files>, the
       extension replaced by each format's; two inputs with one output refused up front (InputError)
    -> jobs whose outputs all exist are skipped: a rerun continues where the last one stopped
    -> decode_files: files read in order, up to batch_size files or batch_size x 30 s of audio at a
       time through transcribe_batch (the same text as one file alone), here or in Ray actors (cluster.py)
    -> each result rendered (formats.py) and written atomically (temp file, fsync, rename), so an output
       that exists is complete; a file that fails -> one line in out_dir/failures.jsonl, the run goes on
       (a FIFO, device or socket fails unopened: reading a FIFO would wait for a writer forever; a
       name that is not UTF-8 is recorded readably and exactly, as base64 of its bytes)
    -> Summary: done / skipped / failed, audio hours, wall time, audio-seconds per second

Ctrl-C stops the run between writes (the summary says `interrupted`): what was written stays, and the
same call again continues. Only this process writes the outputs, also on Ray (workers return texts).
"""

import base64
import json
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Union

import numpy as np
from mlx.nn import Module

from .align.aligner import check_aligner
from .audio.io import SAMPLE_RATE, load_audio
from .audio.vad import VoiceDetector
from .formats import TIMESTAMPS, render
from .load import load
from .options import DecodeOptions
from .plan import FileJob, PathLike, checked_formats, one_line, plan_files
from .progress import progress_bar
from .recogniser import Recogniser
from .result import Transcription
from .transcribe import default_batch_size, transcribe_batch

if TYPE_CHECKING:
    from .cluster import RayOptions

FAILURES_FILE = "failures.jsonl"  # {"file": ..., "error": ...} per line: the failures of the latest run
Outcome = Union[Transcription, str]  # a file's transcription, or the one-line reason it failed
# What decoding a file can raise: a bad input (NaN samples; MLX's errors are ValueError and
# RuntimeError), ImportError (aligning Japanese without its word segmenter). Each fails its file alone.
DECODE_FAULTS = (ValueError, RuntimeError, ImportError)

NAMES = (str, os.PathLike)  # a model given by name (hub id or folder), not loaded yet


@dataclass(frozen=True)
class FileOutcome:
    """What happened to one input: its result (None when it failed, with the reason in `error`)."""

    source: Path
    outputs: tuple[Path, ...]
    seconds: float  # of audio (0 when it failed)
    result: Optional[Transcription] = None
    error: str = ""


@dataclass
class Summary:
    done: int = 0
    skipped: int = 0  # their outputs existed already
    failed: int = 0  # listed in failures_file
    audio_seconds: float = 0.0  # of the files done in this run
    wall_seconds: float = 0.0  # the whole call: planning, loading (or Ray's start-up), decoding, writing
    startup_seconds: float = 0.0  # until the model was loaded (on Ray: every worker's)
    interrupted: bool = False  # Ctrl-C: the same call again continues
    failures_file: Optional[Path] = None

    @property
    def audio_hours(self) -> float:
        return self.audio_seconds / 3600

    @property
    def speed(self) -> float:
        """Audio-seconds transcribed per second of wall time."""
        return self.audio_seconds / self.wall_seconds if self.wall_seconds > 0 else 0.0

    def __str__(self) -> str:
        failed = f"{self.failed} failed" + (f" ({self.failures_file})" if self.failed else "")
        line = (
            f"{self.done} done, {self.skipped} skipped, {failed}; {self.audio_hours:.3f} h of audio in "
            f"{self.wall_seconds:.1f} s (start-up {self.startup_seconds:.1f} s): {self.speed:.1f} audio-seconds per second"
        )
        return line + ("; interrupted: run the same command again to continue" if self.interrupted else "")


def write_atomically(path: Path, text: str) -> None:
    """`text` at `path`, or nothing there: a temp file beside it, flushed to disk, renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with open(partial, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


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


def failure_record(source: Path, error: str) -> str:
    """One line of failures.jsonl. A name that is not UTF-8 (bytes from another system) is written
    readably ("caf\\xe9.wav") and exactly, as base64 of its bytes in "file_base64"."""
    raw = os.fsencode(source)
    record = {"file": raw.decode("utf-8", "backslashreplace")}
    if record["file"].encode() != raw:
        record["file_base64"] = base64.b64encode(raw).decode()
    record["error"] = error.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return json.dumps(record, ensure_ascii=False)


def decode_files(
    paths: Sequence[PathLike],
    model: Recogniser,
    *,
    options: DecodeOptions,
    batch_size: Optional[int] = None,
    aligner: Optional[Module] = None,
    vad: Optional[VoiceDetector] = None,
) -> Iterator[tuple[int, Outcome, float]]:
    """(index in paths, its Transcription or why it failed, seconds of audio) for every file, in
    order. Files are decoded together, up to batch_size files or batch_size x model.chunk_seconds of audio
    at a time (memory stays bounded); each text is the one `transcribe` gives for the file alone."""
    batch_size = batch_size or default_batch_size(model)
    group: list[tuple[int, np.ndarray]] = []
    for i, path in enumerate(paths):
        if (reason := not_a_file(path)) is not None:
            yield i, reason, 0.0
            continue
        try:
            group.append((i, load_audio(path)))
        except (ValueError, OSError) as e:
            yield i, one_line(e), 0.0
            continue
        if len(group) >= batch_size or sum(len(w) for _, w in group) >= batch_size * model.chunk_seconds * SAMPLE_RATE:
            yield from decode_group(group, model, options, batch_size, aligner, vad=vad)
            group = []
    yield from decode_group(group, model, options, batch_size, aligner, vad=vad)


def decode_group(
    group, model, options, batch_size, aligner, on_progress=None, vad: Optional[VoiceDetector] = None
) -> Iterator[tuple[int, Outcome, float]]:
    """A group through transcribe_batch; when it fails, each file alone, so one bad file fails alone."""
    if not group:
        return
    try:
        results = transcribe_batch(
            [wave for _, wave in group],
            model,
            options=options,
            batch_size=batch_size,
            aligner=aligner,
            on_progress=on_progress,
            vad=vad,
        )
    except DECODE_FAULTS as e:
        if len(group) == 1:
            yield group[0][0], one_line(e), 0.0
            return
        for item in group:
            yield from decode_group([item], model, options, batch_size, aligner, vad=vad)
        return
    for (i, wave), result in zip(group, results):
        yield i, result, len(wave) / SAMPLE_RATE


@dataclass
class Run:
    """One call's bookkeeping: writes outputs, records failures, counts; the decoders report here."""

    formats: tuple[str, ...]
    timestamps: str
    failures_file: Path
    on_file: Optional[Callable[[FileOutcome], None]] = None
    advance: Callable[[float], None] = lambda amount: None
    summary: Summary = field(default_factory=Summary)
    began: float = field(default_factory=time.monotonic)

    def started(self) -> None:
        self.summary.startup_seconds = time.monotonic() - self.began

    def finish(self, job: FileJob, outcome: Outcome, seconds: float) -> None:
        if isinstance(outcome, str):
            self.summary.failed += 1
            with open(self.failures_file, "a", encoding="utf-8") as log:
                log.write(failure_record(job.source, outcome) + "\n")
            report = FileOutcome(job.source, job.outputs, 0.0, error=outcome)
        else:
            for fmt, path in zip(self.formats, job.outputs):
                write_atomically(path, render(outcome, fmt, self.timestamps))
            self.summary.done += 1
            self.summary.audio_seconds += seconds
            report = FileOutcome(job.source, job.outputs, seconds, outcome)
        self.advance(1)
        if self.on_file:
            self.on_file(report)


def run_here(jobs: list[FileJob], run: Run, model, dtype, aligner, options, batch_size, vad=None) -> None:
    """The single-process path: load once, decode every job in order."""
    model = load(model, dtype=dtype) if isinstance(model, NAMES) else model
    if aligner is not None:
        aligner = load(aligner, dtype=dtype) if isinstance(aligner, NAMES) else aligner
        check_aligner(aligner)
    run.started()
    paths = [job.source for job in jobs]
    decoded = decode_files(paths, model, options=options, batch_size=batch_size, aligner=aligner, vad=vad)
    for i, outcome, seconds in decoded:
        run.finish(jobs[i], outcome, seconds)


def transcribe_files(
    inputs: Sequence[PathLike],
    model: Union[PathLike, Recogniser],
    out_dir: PathLike,
    *,
    formats: Sequence[str] = ("txt",),
    timestamps: str = "segment",
    options: Optional[DecodeOptions] = None,
    batch_size: Optional[int] = None,
    dtype: Optional[str] = None,
    aligner: Union[PathLike, Module, None] = None,
    ray: Union[None, str, "RayOptions"] = None,
    progress: bool = False,
    on_file: Optional[Callable[[FileOutcome], None]] = None,
    vad: Optional[VoiceDetector] = None,
) -> Summary:
    """Transcribe files, folders and "@manifests" into out_dir (one file per input and format,
    mirroring the inputs), skipping inputs whose outputs exist; returns the Summary.

    `model` / `aligner`: a hub id or folder (loaded once here, or once per Ray worker), or a loaded
    model (not with ray=). `formats`: some of txt, json, srt, vtt; `timestamps`: as in formats.render.
    `options`, `batch_size`, `dtype`: as in transcribe_batch and load. `ray`: None decodes in this
    process; "auto" (the cluster this machine belongs to, else a local one), an address, or a
    RayOptions decodes on Ray workers (pip install 'mlx-qwen3asr[ray]'; see cluster.py).
    `vad`: as in transcribe (not with ray=). `progress`: a bar over files on stderr. `on_file(FileOutcome)`: after each input is written or failed.
    A failing input goes to out_dir/failures.jsonl and the run goes on; Ctrl-C returns the summary so
    far with interrupted=True. Raises InputError for inputs that cannot be planned (before any work).
    """
    began = time.monotonic()
    formats = checked_formats(formats)
    if timestamps not in TIMESTAMPS or (timestamps == "word" and aligner is None):
        raise ValueError(
            f"timestamps must be one of {', '.join(TIMESTAMPS)} ('word' needs an aligner), got {timestamps!r}"
        )
    if ray is not None and not all(isinstance(m, NAMES) for m in (model, aligner) if m is not None):
        raise ValueError("with ray=, name the model (a hub id, or a folder every node can read): each worker loads it")
    if ray is not None and vad is not None and vad.name != "energy":
        raise ValueError("vad= is not available with ray= yet: leave out one of them")
    jobs = plan_files(inputs, out_dir, formats)
    todo = [job for job in jobs if not all(path.exists() for path in job.outputs)]
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    failures = Path(os.path.abspath(out_dir)) / FAILURES_FILE
    failures.unlink(missing_ok=True)  # this run's failures only: the earlier ones are all retried
    run = Run(formats, timestamps, failures, on_file, began=began)
    run.summary.skipped, run.summary.failures_file = len(jobs) - len(todo), failures
    options = options or DecodeOptions()
    try:
        with progress_bar(len(todo), show=progress and bool(todo), unit="files") as advance:
            run.advance = advance
            if todo and ray is None:
                run_here(todo, run, model, dtype, aligner, options, batch_size, vad)
            elif todo:
                from .cluster import run_on_ray  # Ray is imported there only

                run_on_ray(todo, run, model, dtype, aligner, options, batch_size, ray)
    except KeyboardInterrupt:
        run.summary.interrupted = True
    run.summary.wall_seconds = time.monotonic() - began
    return run.summary
