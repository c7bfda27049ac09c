"""Qwen3-ASR speech recognition on MLX.

import mlx_qwen3asr as mq
model = mq.load("Qwen/Qwen3-ASR-0.6B")
print(mq.transcribe("speech.wav", model).text)
summary = mq.transcribe_files(["talks/"], "Qwen/Qwen3-ASR-0.6B", "out/", formats=["txt", "json"])  # resumable
aligner = mq.load("Qwen/Qwen3-ForcedAligner-0.6B")
words = mq.align("speech.wav", "the known text", aligner, "English")  # [Word(text, start, end), ...]
diarizer = mq.load("path/to/speaker-diarization-community-1")  # pyannote's release folder, no torch
turns = mq.diarize("meeting.wav", diarizer).turns  # [Turn(start, end, speaker), ...]
"""

from .align.aligner import align, align_segments
from .align.model import ForcedAligner
from .audio import SAMPLE_RATE, SampleStream, load_audio, log_mel_spectrogram, prepare_audio
from .cluster import RayOptions
from .files import transcribe_files
from .funasr import FunAsrNano
from .load import load
from .model import ModelArgs, Qwen3ASR
from .options import DecodeOptions
from .pyannote import Diarization, Diarizer, Turn, diarize
from .result import Segment, Transcription, Word
from .streaming import LiveSession, StreamingTranscriber, Update
from .tokenizer import SUPPORTED_LANGUAGES, Tokenizer
from .transcribe import default_batch_size, transcribe, transcribe_batch

__version__ = "0.1.0"

__all__ = [
    "SAMPLE_RATE",
    "SUPPORTED_LANGUAGES",
    "DecodeOptions",
    "Diarization",
    "Diarizer",
    "RayOptions",
    "ForcedAligner",
    "FunAsrNano",
    "LiveSession",
    "ModelArgs",
    "Qwen3ASR",
    "SampleStream",
    "Segment",
    "StreamingTranscriber",
    "Tokenizer",
    "Turn",
    "Transcription",
    "Update",
    "Word",
    "align",
    "align_segments",
    "diarize",
    "load",
    "load_audio",
    "log_mel_spectrogram",
    "prepare_audio",
    "default_batch_size",
    "transcribe",
    "transcribe_batch",
    "transcribe_files",
]
