"""Qwen3-ASR speech recognition on MLX.

    import mlx_qwen3asr as mq
    model = mq.load("Qwen/Qwen3-ASR-0.6B")
    print(mq.transcribe("speech.wav", model).text)
"""

from .audio import SAMPLE_RATE, load_audio, prepare_audio
from .config import ModelArgs
from .features import log_mel_spectrogram
from .load import load
from .model import Qwen3ASR
from .result import Segment, Transcription
from .streaming import StreamingTranscriber, Update
from .tokenizer import SUPPORTED_LANGUAGES, Tokenizer
from .transcribe import transcribe

__version__ = "0.1.0"

__all__ = [
    "SAMPLE_RATE",
    "SUPPORTED_LANGUAGES",
    "ModelArgs",
    "Qwen3ASR",
    "Segment",
    "StreamingTranscriber",
    "Tokenizer",
    "Transcription",
    "Update",
    "load",
    "load_audio",
    "log_mel_spectrogram",
    "prepare_audio",
    "transcribe",
]
