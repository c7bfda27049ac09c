"""Audio stage: files and arrays -> 16 kHz mono waveform -> log-mel features; splitting at pauses."""

from .features import log_mel_spectrogram
from .io import AudioInput, load_audio, prepare_audio, resample
from .samples import SAMPLE_RATE, SampleStream

__all__ = [
    "SAMPLE_RATE",
    "AudioInput",
    "SampleStream",
    "load_audio",
    "log_mel_spectrogram",
    "prepare_audio",
    "resample",
]
