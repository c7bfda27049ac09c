"""Audio stage: files and arrays -> 16 kHz mono waveform -> log-mel features; splitting at pauses."""

from .features import HOP_LENGTH, N_FFT, N_MELS, log_mel_spectrogram, mel_filters, power_spectrogram
from .io import AudioInput, load_audio, prepare_audio, resample
from .samples import SAMPLE_RATE, SampleStream
from .split import split_audio

__all__ = [
    "HOP_LENGTH", "N_FFT", "N_MELS", "SAMPLE_RATE", "AudioInput", "load_audio", "log_mel_spectrogram",
    "mel_filters", "power_spectrogram", "prepare_audio", "resample", "SampleStream", "split_audio",
]  # fmt: skip
