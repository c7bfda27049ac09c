"""Nothing lost: each committed utterance goes to disk the moment it is committed.

    --output FILE      one line per utterance, appended, flushed and fsynced before it is displayed,
                       so a crash or SIGKILL loses nothing that was on screen;
                       --timestamps prefixes "[HH:MM:SS.s] " (start of the utterance in the session);
                       with --aligner each word's times follow: " | Hello@12.50-12.90 world@12.90-13.40"
                       (seconds in the session, the aligner's units: punctuation removed)
    --save-audio DIR   DIR/utt-0001.wav ... float32 16 kHz: the exact audio each line was decoded from
"""

import os
import struct
from pathlib import Path
from typing import Optional

import numpy as np

import mlx_qwen3asr as mq

from .errors import AppError
from .pipeline import Commit

RATE = 16000


def timestamp(seconds: float) -> str:
    whole = int(seconds)
    return f"[{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}.{int(seconds * 10) % 10}]"


class TranscriptFile:
    def __init__(self, path: str, timestamps: bool = False, aligner: Optional["mq.ForcedAligner"] = None) -> None:
        try:
            self._file = open(path, "a", encoding="utf-8")
        except OSError as e:
            raise AppError(f"Cannot open --output {path} for appending: {e.strerror}; "
                           "choose a writable path") from e
        self.timestamps = timestamps
        self.aligner = aligner

    def write(self, commit: Commit) -> None:
        prefix = timestamp(commit.start) + " " if self.timestamps else ""
        self._file.write(prefix + commit.text + self.word_times(commit) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def word_times(self, commit: Commit) -> str:
        if self.aligner is None or not self.timestamps:
            return ""
        segment = mq.Segment(0.0, len(commit.audio) / RATE, commit.text, commit.language)
        mq.align_segments([segment], commit.audio, self.aligner)
        times = [f"{w.text}@{commit.start + w.start:.2f}-{commit.start + w.end:.2f}" for w in segment.words]
        return " | " + " ".join(times) if times else ""

    def close(self) -> None:
        self._file.close()


class AudioSaver:
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise AppError(f"Cannot create --save-audio folder {folder}: {e.strerror}") from e
        self.count = len(list(self.folder.glob("utt-*.wav")))

    def write(self, commit: Commit) -> None:
        self.count += 1
        write_float_wav(self.folder / f"utt-{self.count:04d}.wav", commit.audio)

    def close(self) -> None:
        return None


def write_float_wav(path: Path, audio: np.ndarray, rate: int = RATE) -> None:
    """Mono IEEE-float32 WAV: lossless, so re-reading gives back the exact samples."""
    data = np.asarray(audio, "<f4").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16,
                         3, 1, rate, rate * 4, 4, 32, b"data", len(data))
    with open(path, "wb") as f:
        f.write(header + data)


def open_outputs(output: Optional[str], timestamps: bool, save_audio: Optional[str], aligner=None) -> list:
    """The writers a commit goes to before the display, in order."""
    writers: list = []
    if output:
        writers.append(TranscriptFile(output, timestamps, aligner))
    if save_audio:
        writers.append(AudioSaver(save_audio))
    return writers
