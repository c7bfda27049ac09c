"""Qwen3-ASR speech recognition on MLX.

import mlx_qwen3asr as mq
model = mq.load("Qwen/Qwen3-ASR-0.6B")  # = mq.DEFAULT_MODEL, what the command lines load unless told
print(mq.transcribe("speech.wav", model).text)
summary = mq.transcribe_files(["talks/"], "Qwen/Qwen3-ASR-0.6B", "out/", formats=["txt", "json"])  # resumable
aligner = mq.load("Qwen/Qwen3-ForcedAligner-0.6B")
words = mq.align("speech.wav", "the known text", aligner, "English")  # [Word(text, start, end), ...]
live = mq.LiveSession(model)  # live.feed(block) -> [mq.Event, ...]; live.stats: mq.LiveStats
vad = mq.load_vad()  # Silero VAD v6, real weights shipped: vad.speech_timestamps("speech.wav")
diarizer = mq.load("path/to/speaker-diarization-community-1")  # pyannote's release folder, no torch
turns = mq.diarize("meeting.wav", diarizer).turns  # [Turn(start, end, speaker), ...]
"""

from .audio import SAMPLE_RATE, SampleStream, load_audio, log_mel_spectrogram, prepare_audio
from .decode.batch_size import default_batch_size
from .decode.transcribe import transcribe, transcribe_batch
from .families.aligner.aligner import align, align_segments
from .families.aligner.model import ForcedAligner
from .families.fun_asr_nano import FunAsrNano
from .families.pyannote import Diarization, Diarizer, Turn, diarize
from .families.qwen3_asr.config import ModelArgs
from .families.qwen3_asr.languages import SUPPORTED_LANGUAGES
from .families.qwen3_asr.model import Qwen3ASR
from .families.recogniser import Recogniser
from .folders import LocalRunner, RayRunner, transcribe_files
from .loading.load import DEFAULT_MODEL, load
from .options import DecodeOptions
from .result import Segment, Transcription, Word
from .streaming import Event, LiveSession, LiveStats, StreamingTranscriber, Update
from .text.languages import Languages
from .text.tokenizer import Tokenizer
from .vad import SileroVad, load_vad, vad_by_name
from .vad.energy import EnergyVad

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MODEL",
    "SAMPLE_RATE",
    "SUPPORTED_LANGUAGES",
    "DecodeOptions",
    "Diarization",
    "Diarizer",
    "LocalRunner",
    "RayRunner",
    "ForcedAligner",
    "FunAsrNano",
    "Languages",
    "LiveSession",
    "LiveStats",
    "ModelArgs",
    "Qwen3ASR",
    "Recogniser",
    "SampleStream",
    "Segment",
    "SileroVad",
    "EnergyVad",
    "Event",
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
    "load_vad",
    "vad_by_name",
    "log_mel_spectrogram",
    "prepare_audio",
    "default_batch_size",
    "transcribe",
    "transcribe_batch",
    "transcribe_files",
]
