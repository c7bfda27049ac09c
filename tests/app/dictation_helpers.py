"""Helpers for the app tests: speech files made with espeak-ng, app launch, expected text."""

import os
import shutil
import signal
import subprocess
import sys
import time
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.signals import burst, noise, silence  # noqa: F401 (the tests' sound makers)

ROOT = Path(__file__).resolve().parents[2]
RATE = 16000
SENTENCES = ("Hello there, this is the first sentence.", "The second one is a little longer.", "And that is all.")
MAX_NEW_TOKENS = 8  # random weights never stop on their own
MAX_SLOWDOWN = 4.0  # waits grow with the machine's load up to this factor, never without bound


def patient(seconds: float) -> float:
    """`seconds` scaled by how overloaded the machine is now (1-minute load per core, 1 to 4x):
    on a shared 2-core machine a test may run beside others, and real-time audio does not wait."""
    load_per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    return seconds * min(MAX_SLOWDOWN, max(1.0, load_per_core))


@dataclass
class SpeechFile:
    path: Path
    sentences: list[np.ndarray]  # each sentence's samples, float32 (int16 / 32768)
    starts: list[int]  # where each begins in the file


def write_wav(path: Path, samples: np.ndarray) -> Path:
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1), f.setsampwidth(2), f.setframerate(RATE)
        f.writeframes(np.asarray(samples, np.int16).tobytes())
    return path


def espeak(text: str, folder: Path, name: str) -> np.ndarray:
    """16 kHz int16 speech for `text` (espeak-ng writes 22.05 kHz; sox converts)."""
    if shutil.which("espeak-ng") is None or shutil.which("sox") is None:
        pytest.skip("needs espeak-ng and sox to make speech (apt install espeak-ng sox)")
    subprocess.run(["espeak-ng", "-w", folder / f"{name}.raw.wav", text], check=True)
    subprocess.run(
        ["sox", folder / f"{name}.raw.wav", "-r", "16000", "-c", "1", "-b", "16", folder / f"{name}.wav"], check=True
    )
    with wave.open(str(folder / f"{name}.wav")) as f:
        return np.frombuffer(f.readframes(f.getnframes()), np.int16)


def make_speech_file(folder: Path, texts=SENTENCES, lead: float = 1.0, gap: float = 1.5) -> SpeechFile:
    """Sentences separated by `gap` seconds of digital silence, `lead` seconds of it first."""
    parts, sentences, starts, at = [np.zeros(int(lead * RATE), np.int16)], [], [], int(lead * RATE)
    for i, text in enumerate(texts):
        speech = espeak(text, folder, f"s{i}")
        sentences.append(speech.astype(np.float32) / 32768)
        starts.append(at)
        parts += [speech, np.zeros(int(gap * RATE), np.int16)]
        at += len(speech) + int(gap * RATE)
    return SpeechFile(write_wav(folder / "speech.wav", np.concatenate(parts)), sentences, starts)


def app_command(model: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mlx_qwen3asr_app",
        "--model",
        str(model),
        "--max-new-tokens",
        str(MAX_NEW_TOKENS),
        *args,
    ]


def app_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def saved_utterances(folder: Path) -> list[np.ndarray]:
    return [mq.load_audio(p) for p in sorted(folder.glob("utt-*.wav"))]


def expected_lines(model, utterances: list[np.ndarray]) -> list[str]:
    """What offline transcription gives for each utterance the app decoded."""
    return [mq.transcribe(u, model, max_new_tokens=MAX_NEW_TOKENS).text for u in utterances]


class RunningApp:
    """The app as a child process with stdout piped; its lines are collected as they come.

    Each runs in a process group of its own; `kill_all` (called after every test by conftest.py)
    kills the groups still running, so a failed test never leaves an app behind.
    """

    running: list["RunningApp"] = []

    def __init__(self, args: list[str]) -> None:
        import queue
        import threading

        self.process = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=app_env(),
            cwd=ROOT,
            start_new_session=True,
        )
        RunningApp.running.append(self)
        self._lines: queue.Queue[str] = queue.Queue()
        self.lines: list[str] = []
        self.errors: list[str] = []  # stderr lines so far
        self._readers = [threading.Thread(target=f, daemon=True) for f in (self._read, self._read_errors)]
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))

    def _read_errors(self) -> None:
        for line in self.process.stderr:
            self.errors.append(line.rstrip("\n"))

    @classmethod
    def kill_all(cls) -> None:
        while cls.running:
            app = cls.running.pop()
            if app.process.poll() is None:
                os.killpg(app.process.pid, signal.SIGKILL)
                app.process.wait(timeout=10)

    def wait_for_error(self, text: str, timeout: float = 30.0) -> None:
        """Wait until a stderr line contains `text` (the wait scales with the machine's load)."""
        end = time.monotonic() + patient(timeout)
        while not any(text in line for line in self.errors):
            assert self.process.poll() is None, "app exited; stderr:\n" + "\n".join(self.errors)
            assert time.monotonic() < end, f"{text!r} not on stderr:\n" + "\n".join(self.errors)
            time.sleep(0.05)

    def next_line(self, timeout: float = 30.0) -> str:
        import queue

        try:
            line = self._lines.get(timeout=patient(timeout))
        except queue.Empty:
            raise AssertionError(
                f"no committed line within {timeout} s; lines so far {self.lines}; stderr:\n" + "\n".join(self.errors)
            ) from None
        self.lines.append(line)
        return line

    def finish(self, timeout: float = 60.0) -> tuple[int, str]:
        """Wait for exit; returns (exit status, stderr) with every stdout line collected."""
        self.process.wait(timeout=patient(timeout))
        for reader in self._readers:
            reader.join(timeout=5)
        while not self._lines.empty():
            self.lines.append(self._lines.get())
        return self.process.returncode, "\n".join(self.errors)
