"""Microphone capture with a fake sounddevice module: the callback only copies, nothing is lost
silently, a lost device is reported, finalised and reopened. (The real PortAudio path is tested
end to end in test_dictation_mic.py.)"""

import queue
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from mlx_qwen3asr_app.capture import Block, Gap, Marker, MicSource
from mlx_qwen3asr_app.errors import AppError


class FakePortAudioError(Exception):
    pass


class FakeStream:
    def __init__(self, callback, samplerate, channels, **_):
        self.callback, self.samplerate, self.channels = callback, samplerate, channels
        self.active = False

    def start(self):
        self.active = True

    def stop(self):
        self.active = False

    def close(self):
        pass


class FakeSoundDevice:
    """Just what MicSource uses; `available` False makes every device query fail."""

    PortAudioError = FakePortAudioError
    DEVICES = [
        {"name": "Fake Mic", "default_samplerate": 48000.0, "max_input_channels": 2},
        {"name": "Fake Speakers", "default_samplerate": 48000.0, "max_input_channels": 0},
        {"name": "USB Headset", "default_samplerate": 16000.0, "max_input_channels": 1},
    ]
    default = SimpleNamespace(device=(0, 1))

    def __init__(self, mono_ok: bool = True):
        self.available, self.mono_ok, self.streams = True, mono_ok, []

    def query_devices(self, device=None, kind=None):
        if device is None and kind is None:
            return self.DEVICES
        if not self.available:
            raise FakePortAudioError("Error querying device -1")
        if device is not None:
            raise ValueError(f"No input device matching {device!r}")
        return self.DEVICES[0]

    def check_input_settings(self, device=None, channels=None, samplerate=None, dtype=None):
        if channels == 1 and not self.mono_ok:
            raise FakePortAudioError("Invalid number of channels")

    def InputStream(self, **kwargs):
        self.streams.append(FakeStream(**kwargs))
        return self.streams[-1]


def status(overflow: bool = False):
    return SimpleNamespace(input_overflow=overflow)


def test_the_callback_copies_blocks_into_the_queue_at_the_devices_rate():
    sd, blocks = FakeSoundDevice(), queue.Queue(maxsize=10)
    mic = MicSource(blocks, sounddevice=sd)
    mic.start()
    data = np.ones((1440, 1), np.float32)
    sd.streams[0].callback(data, 1440, None, status())
    data[:] = 0  # PortAudio reuses its buffer after the callback returns
    block = blocks.get_nowait()
    assert isinstance(block, Block) and block.rate == 48000, "native rate, no resampling in the callback"
    assert block.samples.sum() == 1440, "the callback must copy, not keep PortAudio's buffer"


def test_a_device_without_mono_is_opened_in_stereo():
    sd = FakeSoundDevice(mono_ok=False)
    MicSource(queue.Queue(), sounddevice=sd).start()
    assert sd.streams[0].channels == 2, "downmixing happens later, off the callback"


def test_overflows_and_a_full_queue_are_counted():
    sd, blocks = FakeSoundDevice(), queue.Queue(maxsize=1)
    mic = MicSource(blocks, sounddevice=sd)
    mic.start()
    block = np.zeros((480, 1), np.float32)
    sd.streams[0].callback(block, 480, None, status(overflow=True))  # late, but queued
    sd.streams[0].callback(block, 480, None, status())  # queue full: dropped
    assert mic.overflows == 2, f"one overflow and one dropped block, counted {mic.overflows}"


def test_no_input_device_says_how_to_fix_it():
    sd = FakeSoundDevice()
    sd.available = False
    with pytest.raises(AppError, match="No default input device.*--list-devices.*--input"):
        MicSource(queue.Queue(), sounddevice=sd).start()


def test_a_device_that_is_not_found_is_reported_with_the_list_of_inputs():
    with pytest.raises(AppError) as error:
        MicSource(queue.Queue(), device="Studio", sounddevice=FakeSoundDevice()).check_device()
    message = str(error.value)
    assert "input device 'Studio'" in message, message
    assert "*   0  Fake Mic  (2 ch, 48000 Hz)" in message and "    2  USB Headset  (1 ch, 16000 Hz)" in message, (
        f"the inputs are listed, the default starred:\n{message}"
    )
    assert "Fake Speakers" not in message, "outputs are not inputs"


def test_a_lost_device_is_reported_finalised_and_reopened_every_second():
    sd, blocks, clock = FakeSoundDevice(), queue.Queue(), SimpleNamespace(now=0.0)
    mic = MicSource(blocks, sounddevice=sd, clock=lambda: clock.now)
    mic.start()
    sd.streams[0].active = False  # what PortAudio does when the device disappears
    sd.available = False
    assert "lost" in mic.check(), "the user is told"
    assert blocks.get_nowait() is Marker.GAP, "the open utterance is finalised"
    clock.now = 1.0
    assert mic.check() is None and mic.lost, "still gone: keep trying quietly"
    sd.available = True
    clock.now = 1.5
    assert mic.check() is None and mic.lost, "at most one attempt per second"
    clock.now = 2.0
    assert "reopened" in mic.check() and not mic.lost and sd.streams[-1].active, "back when it returns"


def test_stop_closes_the_stream_and_ends_the_queue():
    sd, blocks = FakeSoundDevice(), queue.Queue()
    mic = MicSource(blocks, sounddevice=sd)
    mic.start()
    mic.stop()
    assert not sd.streams[0].active and blocks.get_nowait() is Marker.END


def adc(t: float):
    """PortAudio's time info: the stream time of the block's first sample."""
    return SimpleNamespace(inputBufferAdcTime=t)


def test_blocks_dropped_by_a_stalled_consumer_become_one_gap_before_the_next_block():
    sd, blocks = FakeSoundDevice(), queue.Queue(maxsize=3)
    mic = MicSource(blocks, sounddevice=sd)
    mic.start()
    block = np.zeros((1440, 1), np.float32)  # 30 ms at 48 kHz
    for i in range(5):  # the decoder is stalled: the queue holds 3, two are dropped
        sd.streams[0].callback(block, 1440, adc(i * 0.03), status())
    assert mic.overflows == 2, f"two dropped blocks counted, got {mic.overflows}"
    drained = [blocks.get_nowait() for _ in range(3)]
    assert all(isinstance(b, Block) for b in drained)
    sd.streams[0].callback(block, 1440, adc(5 * 0.03), status())
    gap, after = blocks.get_nowait(), blocks.get_nowait()
    assert isinstance(gap, Gap) and gap.seconds == pytest.approx(0.06), f"the 60 ms lost, then audio: {gap}"
    assert isinstance(after, Block) and mic.overflows == 2 and mic.lost_seconds == pytest.approx(0.06)


def test_a_jump_of_the_streams_clock_without_any_overflow_flag_is_counted_as_lost_audio():
    sd, blocks = FakeSoundDevice(), queue.Queue()
    mic = MicSource(blocks, sounddevice=sd)
    mic.start()
    block = np.zeros((1440, 1), np.float32)
    for t in (100.0, 100.03, 107.06, 107.09):  # 7 s missing between the 2nd and 3rd block, no flag set
        sd.streams[0].callback(block, 1440, adc(t), status())
    items = [blocks.get_nowait() for _ in range(blocks.qsize())]
    kinds = [type(item).__name__ for item in items]
    assert kinds == ["Block", "Block", "Gap", "Block", "Block"], kinds
    assert items[2].seconds == pytest.approx(7.0) and mic.overflows == 1 and mic.lost_seconds == pytest.approx(7.0)


def test_without_stream_times_the_wall_clock_detects_a_long_stall_but_not_jitter():
    sd, blocks, clock = FakeSoundDevice(), queue.Queue(), SimpleNamespace(now=0.0)
    mic = MicSource(blocks, sounddevice=sd, clock=lambda: clock.now)
    mic.start()
    block = np.zeros((1440, 1), np.float32)
    for t in (0.0, 0.5, 0.51, 0.52, 3.53):  # a callback 0.4 s late then a burst: jitter; then 3 s missing
        clock.now = t
        sd.streams[0].callback(block, 1440, adc(0.0), status())  # 0: the host API gives no stream time
    kinds = [type(blocks.get_nowait()).__name__ for _ in range(blocks.qsize())]
    assert kinds == ["Block"] * 4 + ["Gap", "Block"] and mic.overflows == 1, (kinds, mic.overflows)


def test_without_the_dictate_extra_the_app_says_in_one_line_how_to_install_it():
    """sounddevice comes with `pip install 'mlx-qwen3asr[dictate]'`: the library runs without it."""
    code = (
        "import sys; sys.modules['sounddevice'] = None  # as if not installed\n"
        "from mlx_qwen3asr_app.__main__ import main; sys.exit(main(['--list-devices']))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, (run.returncode, run.stderr)
    assert run.stderr.splitlines() == [
        "error: sounddevice is not installed (the microphone needs it): pip install 'mlx-qwen3asr[dictate]', "
        "or use --input FILE.wav"
    ], run.stderr
