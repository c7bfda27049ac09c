"""Nothing lost: each committed utterance goes to disk the moment it is committed.

--output FILE      one line per utterance (a line break inside its text becomes a space), appended, fsynced before it is displayed, so a
                   crash or SIGKILL loses nothing that was on screen;
                   --timestamps prefixes "[HH:MM:SS.s] " (start of the utterance in the session);
                   with --aligner each word's times follow: " | Hello@12.50-12.90 world@12.90-13.40"
                   (seconds in the session, the aligner's units: punctuation removed)
--save-audio DIR   DIR/utt-0001.wav ... float32 16 kHz: the exact audio each line was decoded from

commit -> KeptWriter -> TranscriptFile / AudioSaver
             a write that fails (disk full, I/O error) keeps the commit, says so once, and
             retries it, in order, with every later commit; at the end whatever is still
             unwritten goes to a fallback in the temp folder (or, failing that, to stderr) and
             the user is told which lines are where. The decoding thread never sees the error.
"""

import os
import re
import struct
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Optional, Protocol

import numpy as np

from mlx_qwen3asr.streaming import Event

from .errors import AppError

RATE = 16000


# What ends a line for str.splitlines (and so for editors and `wc -l`), with the spaces around it.
LINE_BREAK = re.compile(r"\s*[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]\s*")


def one_line(text: str) -> str:
    """An utterance as one line: every line break inside the text, with the spaces around it, becomes
    one space (other characters, full-width spaces included, stay as the model wrote them)."""
    return LINE_BREAK.sub(" ", text).strip()


def gap_mark(seconds: float) -> str:
    """The transcript line that stands for lost audio."""
    return f"[… {seconds:.1f} s of audio lost …]"


def timestamp(seconds: float) -> str:
    whole = int(seconds)
    return f"[{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}.{int(seconds * 10) % 10}]"


class Writer(Protocol):
    name: str  # what the user called it: "--output notes.txt"

    def write(self, commit: Event) -> None: ...  # all or nothing; OSError when it could not
    def salvage(self, commits: list[Event]) -> str: ...  # writes them elsewhere; returns where
    def close(self) -> None: ...


class TranscriptFile:
    def __init__(self, path: str, timestamps: bool = False) -> None:
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as e:
            raise AppError(f"Cannot open --output {path} for appending: {e.strerror}; choose a writable path") from e
        self.path, self.timestamps = path, timestamps
        self.name = f"--output {path}"

    def line(self, commit: Event) -> str:
        prefix = timestamp(commit.start) + " " if self.timestamps else ""
        return prefix + commit.text + self.word_times(commit) + "\n"

    def word_times(self, commit: Event) -> str:
        if not self.timestamps or not commit.words:
            return ""
        return " | " + " ".join(f"{w.text}@{w.start:.2f}-{w.end:.2f}" for w in commit.words)

    def write(self, commit: Event) -> None:
        """The whole line or nothing: a write that fails half-way is cut back, so a retry never doubles it."""
        data = self.line(commit).encode("utf-8")
        size = os.fstat(self._fd).st_size
        try:
            while data:
                data = data[os.write(self._fd, data) :]
            os.fsync(self._fd)
        except OSError:
            try:
                os.ftruncate(self._fd, size)
            except OSError:
                pass  # not a regular file (/dev/full): nothing was kept there to cut back
            raise

    def salvage(self, commits: list[Event]) -> str:
        fd, path = tempfile.mkstemp(prefix=f"dictation-unsaved-{time.strftime('%Y%m%d-%H%M%S')}-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.writelines(self.line(c) for c in commits)
        return path

    def close(self) -> None:
        os.close(self._fd)


class AudioSaver:
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self.name = f"--save-audio {folder}"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=self.folder).close()  # can files be made there? (an existing read-only folder)
        except OSError as e:
            raise AppError(
                f"Cannot write into --save-audio folder {folder}: {e.strerror}; choose a writable folder"
            ) from e
        self.count = len(list(self.folder.glob("utt-*.wav")))

    def write(self, commit: Event) -> None:
        if commit.type == "gap":
            return  # a gap mark has no audio
        write_float_wav(self.folder / f"utt-{self.count + 1:04d}.wav", commit.audio)
        self.count += 1  # only once written: a retry reuses the number

    def salvage(self, commits: list[Event]) -> str:
        folder = Path(tempfile.mkdtemp(prefix="dictation-unsaved-audio-"))
        for i, commit in enumerate((c for c in commits if c.type != "gap"), start=self.count + 1):
            write_float_wav(folder / f"utt-{i:04d}.wav", commit.audio)
        return str(folder)

    def close(self) -> None:
        return None


def write_float_wav(path: Path, audio: np.ndarray, rate: int = RATE) -> None:
    """Mono IEEE-float32 WAV: lossless, so re-reading gives back the exact samples. A failed write
    leaves no half file behind."""
    data = np.asarray(audio, "<f4").tobytes()
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(data),
        b"WAVE",
        b"fmt ",
        16,
        3,
        1,
        rate,
        rate * 4,
        4,
        32,
        b"data",
        len(data),
    )
    try:
        with open(path, "wb") as f:
            f.write(header + data)
    except OSError:
        path.unlink(missing_ok=True)
        raise


class KeptWriter:
    """A writer whose failures never reach the caller: unwritten commits are kept and retried."""

    def __init__(self, writer: Writer, say: Callable[[str], None]) -> None:
        self.writer, self.say = writer, say
        self.pending: deque[Event] = deque()
        self.written = 0
        self.failure: Optional[OSError] = None

    def write(self, commit: Event) -> None:
        self.pending.append(commit)
        self._retry()

    def _retry(self) -> None:
        while self.pending:
            try:
                self.writer.write(self.pending[0])
            except OSError as e:
                if self.failure is None:
                    self.say(
                        f"{self.writer.name}: cannot write ({e.strerror or e}); the text stays on screen, "
                        "unwritten lines are kept and written when it works again"
                    )
                self.failure = e
                return
            self.pending.popleft()
            self.written += 1
        if self.failure is not None:
            self.say(f"{self.writer.name}: writing works again; every kept line is written")
            self.failure = None

    def close(self) -> None:
        """Retry once more, then salvage what is left and say where everything went."""
        self._retry()
        try:
            self.writer.close()
        except OSError:
            pass  # every line was fsynced as it was written; closing adds nothing
        if not self.pending:
            return
        left, reason = list(self.pending), self.failure.strerror or str(self.failure)
        where = (
            f"the first {self.written} of this session's {self.written + len(left)} utterances are in it; "
            f"the last {len(left)}"
        )
        name = self.writer.name
        try:
            self.say(f"{name}: {where} could not be written ({reason}); they are in {self.writer.salvage(left)}")
        except OSError:
            self.say(f"{name}: {where} could not be written ({reason}), nor saved elsewhere; here they are:")
            for commit in left:
                print(commit.text, file=sys.stderr, flush=True)


def open_outputs(
    output: Optional[str], timestamps: bool, save_audio: Optional[str], say: Callable[[str], None]
) -> list[KeptWriter]:
    """The writers a commit goes to before the display, in order; each checked up front."""
    writers: list[Writer] = []
    if output:
        writers.append(TranscriptFile(output, timestamps))
    if save_audio:
        writers.append(AudioSaver(save_audio))
    return [KeptWriter(w, say) for w in writers]
