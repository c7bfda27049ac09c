"""Folders of audio in, transcripts out, resumable: `transcribe_files(inputs, spec, out_dir)`.

    inputs: files, folders (searched recursively for audio), manifests "@list.txt" (one path a line,
            relative to the manifest's folder; blank lines and "# ..." skipped)
    -> plan.py: each audio file with its outputs, mirrored under out_dir: out_dir/<its path relative to
       the folder given, or to the common parent of a manifest's entries or of the loose files>, the
       extension replaced by each format's; two inputs with one output refused up front (InputError)
    -> jobs whose outputs all exist are skipped: a rerun continues where the last one stopped
    -> FolderSpec (spec.py): the models, options, batch size, aligner, diarizer and VAD, as one object
    -> a runner (runner.py): LocalRunner decodes here, RayRunner on Ray workers (ray_runner.py); both
       through decode.decode_files (the same text as one file alone), reporting to this run's OutputWriter
    -> each result rendered (outputs/formats.py) and written atomically (temp file, fsync, rename), so an output
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
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..outputs.formats import TIMESTAMPS, render
from ..outputs.progress import progress_bar
from ..outputs.subtitles import SubtitleLayout
from ..result import Transcription
from .decode import Decoded
from .plan import PathLike, PlannedFile, checked_formats, plan_files
from .runner import LocalRunner, Runner
from .spec import FolderSpec

FAILURES_FILE = "failures.jsonl"  # {"file": ..., "error": ...} per line: the failures of the latest run


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


def failure_record(source: Path, error: str) -> str:
    """One line of failures.jsonl. A name that is not UTF-8 (bytes from another system) is written
    readably ("caf\\xe9.wav") and exactly, as base64 of its bytes in "file_base64"."""
    raw = os.fsencode(source)
    record = {"file": raw.decode("utf-8", "backslashreplace")}
    if record["file"].encode() != raw:
        record["file_base64"] = base64.b64encode(raw).decode()
    record["error"] = error.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return json.dumps(record, ensure_ascii=False)


@dataclass
class OutputWriter:
    """One run's bookkeeping: writes each file's outputs, records failures, counts (a runner reports here)."""

    formats: tuple[str, ...]
    timestamps: str
    failures_file: Path
    on_file: Optional[Callable[[FileOutcome], None]] = None
    layout: Optional[SubtitleLayout] = None  # readable subtitles (srt, vtt) from the aligner's words
    advance: Callable[[float], None] = lambda amount: None
    summary: Summary = field(default_factory=Summary)
    began: float = field(default_factory=time.monotonic)

    def models_ready(self) -> None:
        self.summary.startup_seconds = time.monotonic() - self.began

    def record(self, file: PlannedFile, decoded: Decoded) -> None:
        if decoded.result is None:
            self.summary.failed += 1
            with open(self.failures_file, "a", encoding="utf-8") as log:
                log.write(failure_record(file.source, decoded.error) + "\n")
        else:
            for fmt, path in zip(self.formats, file.outputs):
                write_atomically(path, render(decoded.result, fmt, self.timestamps, self.layout))
            self.summary.done += 1
            self.summary.audio_seconds += decoded.seconds
        self.advance(1)
        if self.on_file:
            self.on_file(FileOutcome(file.source, file.outputs, decoded.seconds, decoded.result, decoded.error))


def transcribe_files(
    inputs: Sequence[PathLike],
    spec: FolderSpec,
    out_dir: PathLike,
    *,
    formats: Sequence[str] = ("txt",),
    timestamps: str = "segment",
    runner: Optional[Runner] = None,
    progress: bool = False,
    on_file: Optional[Callable[[FileOutcome], None]] = None,
    layout: Optional[SubtitleLayout] = None,
) -> Summary:
    """Transcribe files, folders and "@manifests" into out_dir (one file per input and format,
    mirroring the inputs), skipping inputs whose outputs exist; returns the Summary.

    `spec`: what every file is decoded with (FolderSpec: the model, options, dtype, aligner, diarizer,
    batch size, vad); its models by name (a hub id or folder: loaded once here, or once per Ray worker)
    or loaded (not on Ray); with a diarizer every segment (and word, with an aligner) carries its speaker
    in every format. `formats`: some of txt, json, srt, vtt; `timestamps`: as in formats.render.
    `runner`: LocalRunner() (the default: this process) or RayRunner(...) (Ray workers; pip install
    'mlx-qwen3asr[ray]'; see ray_runner.py). `progress`: a bar over files on stderr.
    `on_file(FileOutcome)`: after each input is written or failed. `layout`: readable SRT/VTT cues from
    the aligner's word times (subtitles.SubtitleLayout; needs an aligner, and timestamps other than "word").
    A failing input goes to out_dir/failures.jsonl and the run goes on; Ctrl-C returns the summary so
    far with interrupted=True. Raises InputError for inputs that cannot be planned (before any work).
    """
    began = time.monotonic()
    if not isinstance(spec, FolderSpec):
        raise TypeError(
            f"transcribe_files takes a FolderSpec, got {type(spec).__name__}: pass mq.FolderSpec(model, ...)"
        )
    formats, aligner = checked_formats(formats), spec.aligner
    if timestamps not in TIMESTAMPS or (timestamps == "word" and aligner is None):
        raise ValueError(
            f"timestamps must be one of {', '.join(TIMESTAMPS)} ('word' needs an aligner), got {timestamps!r}"
        )
    if layout is not None and (aligner is None or timestamps == "word"):
        raise ValueError("layout lays out the aligner's word times: it needs aligner= and timestamps other than 'word'")
    runner = runner or LocalRunner()
    runner.check(spec)
    files = plan_files(inputs, out_dir, formats)
    todo = [file for file in files if not all(path.exists() for path in file.outputs)]
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    failures = Path(os.path.abspath(out_dir)) / FAILURES_FILE
    failures.unlink(missing_ok=True)  # this run's failures only: the earlier ones are all retried
    writer = OutputWriter(formats, timestamps, failures, on_file, layout, began=began)
    writer.summary.skipped, writer.summary.failures_file = len(files) - len(todo), failures
    try:
        with progress_bar(len(todo), show=progress and bool(todo), unit="files") as advance:
            writer.advance = advance
            if todo:
                runner.run(todo, spec, writer)
    except KeyboardInterrupt:
        writer.summary.interrupted = True
    writer.summary.wall_seconds = time.monotonic() - began
    return writer.summary
