"""Microphone capture: a sounddevice InputStream whose callback only copies into a bounded queue.

    PortAudio thread: callback(indata [n, channels] at the device rate) -> copy -> Block -> queue
    (the worker thread downmixes and resamples; see conditioner.py)

The device's own rate and a channel count it accepts are used as they are. Overflows reported by
PortAudio and blocks dropped because the queue was full are both counted, never silent. Audio lost
without any flag (PulseAudio drops what a stalled client did not read and PortAudio says nothing)
shows in the stream's own clock: the time of a block's first sample (PortAudio's ADC time; the
wall clock when the host API gives none) runs ahead of the samples received. Either way a Gap item
with the lost seconds goes into the queue before the next block, so the open utterance ends at the
gap instead of splicing the audio on both sides of it. A stream
whose device disappears stops calling back and reports `active == False`; `check` notices, puts a
GAP marker in the queue (so the open utterance is finalised) and tries to reopen every second.
"""

import os
import queue
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from typing import Optional, Union

import numpy as np

from .errors import AppError

BLOCK_SECONDS = 0.03
REOPEN_EVERY = 1.0
NATIVE_LOG = os.path.join(tempfile.gettempdir(), "mlx-qwen3asr-dictate-audio.log")
# Audio counts as lost when the clock runs this far ahead of the samples received: a few blocks
# of jitter on the ADC clock; on the wall clock (callbacks can arrive late in bursts and catch up
# without any loss) only a stall long enough to be worth marking.
LOST_AFTER_ADC = 0.2
LOST_AFTER_WALL = 1.0
NO_DEVICE_FIX = (
    "connect a microphone, check that the sound server is running, "
    "pick one with --device (see --list-devices), or replay a file with --input FILE.wav"
)


@dataclass
class Block:
    """Captured samples [n, channels] at `rate`; `time` is the monotonic clock at its last sample."""

    samples: np.ndarray
    rate: int
    time: float


@dataclass
class Gap:
    """`seconds` of audio were lost just before the next block: end the open utterance here."""

    seconds: float


class Marker(Enum):
    GAP = "gap"  # the input was interrupted: finalise what is open
    END = "end"  # no more input


def import_sounddevice():
    try:
        import sounddevice
    except ImportError as e:  # the library does not need it: it comes with the [dictate] extra
        raise AppError(
            "sounddevice is not installed (the microphone needs it): pip install 'mlx-qwen3asr[dictate]', "
            "or use --input FILE.wav"
        ) from e
    except OSError as e:  # sounddevice raises OSError when libportaudio is missing
        raise AppError(
            "PortAudio library not found: install it (macOS: brew install portaudio; "
            "Debian/Ubuntu: sudo apt install libportaudio2), or use --input FILE.wav"
        ) from e
    return sounddevice


@contextmanager
def native_stderr_to(path: str = NATIVE_LOG):
    """Send what native libraries write to fd 2 (PortAudio/ALSA/JACK noise when a device goes away)
    to `path`; Python's own sys.stderr keeps writing to the terminal."""
    sys.stderr.flush()
    saved = os.dup(2)
    log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 2)
    os.close(log)
    python_stderr, sys.stderr = sys.stderr, os.fdopen(os.dup(saved), "w", buffering=1)
    try:
        yield
    finally:
        sys.stderr.flush()
        sys.stderr.close()
        os.dup2(saved, 2)
        os.close(saved)
        sys.stderr = python_stderr


def parse_device(device: Optional[str]) -> Union[int, str, None]:
    return int(device) if device is not None and device.strip().isdigit() else device


def list_devices(sd=None) -> str:
    """One line per input device: index, name, channels, default rate; `*` marks the default."""
    sd = sd or import_sounddevice()
    default_in = sd.default.device[0]
    lines = [
        f"{'*' if i == default_in else ' '} {i:3d}  {d['name']}  ({d['max_input_channels']} ch, "
        f"{d['default_samplerate']:.0f} Hz)"
        for i, d in enumerate(sd.query_devices())
        if d["max_input_channels"] > 0
    ]
    return "\n".join(lines) if lines else f"No input devices: {NO_DEVICE_FIX}"


class MicSource:
    """A live microphone feeding `blocks`; `overflows` counts every lost or late block and every
    jump of the stream's clock; `lost_seconds` adds up the audio known to be lost."""

    def __init__(
        self,
        blocks: queue.Queue,
        device: Optional[str] = None,
        sounddevice=None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sd = sounddevice or import_sounddevice()  # tests pass a fake module
        self.clock = clock
        self.blocks = blocks
        self.device = parse_device(device)
        self.overflows = 0
        self.lost_seconds = 0.0
        self._lost_frames = 0  # lost and not yet announced by a Gap in the queue
        self._clock_start: Optional[float] = None  # stream time of the first sample since (re)opening
        self._frames_seen = 0
        self.lost = False  # the device went away and is not back yet
        self._stream = None
        self._stopping = False
        self._next_reopen = 0.0
        self.opened_at = 0.0  # monotonic time the stream last (re)opened
        self.describe = ""

    def _callback(self, indata: np.ndarray, frames: int, time_info, status) -> None:
        if status.input_overflow:
            self.overflows += 1
        self._check_clock(frames, time_info)
        try:
            if self._lost_frames:
                self.blocks.put_nowait(Gap(self._lost_frames / self._rate))
                self._lost_frames = 0
            self.blocks.put_nowait(Block(indata.copy(), self._rate, self.clock()))
        except queue.Full:
            self.overflows += 1
            self._lost_frames += frames
            self.lost_seconds += frames / self._rate

    def _check_clock(self, frames: int, time_info) -> None:
        """Count audio the stream skipped: its clock ahead of the samples it delivered."""
        adc = getattr(time_info, "inputBufferAdcTime", 0.0) or 0.0
        now, limit = (adc, LOST_AFTER_ADC) if adc > 0 else (self.clock(), LOST_AFTER_WALL)
        if self._clock_start is None:
            self._clock_start, self._frames_seen = now, 0
        ahead = now - (self._clock_start + self._frames_seen / self._rate)
        if ahead > limit:
            self.overflows += 1
            self._lost_frames += round(ahead * self._rate)
            self.lost_seconds += ahead
            self._clock_start, self._frames_seen = now, 0
        self._frames_seen += frames

    def check_device(self) -> dict:
        """The input device's info; a device that is not there is an error listing the inputs."""
        sd = self._sd
        try:
            return sd.query_devices(self.device, kind="input")
        except (sd.PortAudioError, ValueError) as e:
            name = "default input device" if self.device is None else f"input device {self.device!r}"
            raise AppError(f"No {name} ({e}): {NO_DEVICE_FIX}\ninputs:\n{list_devices(sd)}") from e

    def start(self) -> None:
        sd = self._sd
        info = self.check_device()
        self._rate = int(info["default_samplerate"])
        self._clock_start = None  # a reopened stream starts a new clock
        channels = 1
        try:
            sd.check_input_settings(self.device, channels=1, samplerate=self._rate, dtype="float32")
        except sd.PortAudioError:
            channels = min(int(info["max_input_channels"]), 2)
        try:
            self._stream = sd.InputStream(
                device=self.device,
                samplerate=self._rate,
                channels=channels,
                dtype="float32",
                blocksize=round(self._rate * BLOCK_SECONDS),
                callback=self._callback,
            )
            self._stream.start()
        except sd.PortAudioError as e:
            raise AppError(f"Cannot open input device {info['name']!r}: {e}. {NO_DEVICE_FIX}") from e
        self.describe = f"{info['name']} ({self._rate} Hz, {channels} ch)"
        self.opened_at = self.clock()

    def check(self) -> Optional[str]:
        """Notice a lost device and try to get it back; returns a message for the user, if any."""
        if self._stopping:
            return None
        if not self.lost and self._stream is not None and not self._stream.active:
            self.lost = True
            self._close_stream()
            self.blocks.put(Marker.GAP)
            self._next_reopen = self.clock() + REOPEN_EVERY
            return (
                "input device lost: what was captured is kept and transcribed; trying to reopen it "
                f"(audio library messages: {NATIVE_LOG})"
            )
        if self.lost and self.clock() >= self._next_reopen:
            try:
                self.start()
            except AppError:
                self._next_reopen = self.clock() + REOPEN_EVERY
                return None
            self.lost = False
            return f"input device reopened: {self.describe}"
        return None

    def stop(self) -> None:
        """Stop capturing; everything already captured stays in the queue, followed by END."""
        self._stopping = True
        self._close_stream()
        self.blocks.put(Marker.END)

    def _close_stream(self) -> None:
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None
