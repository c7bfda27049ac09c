"""Qwen3-ASR speech recognition on MLX.

import mlx_qwen3asr as mq
model = mq.load("Qwen/Qwen3-ASR-0.6B")  # = mq.DEFAULT_MODEL, what the command lines load unless told
print(mq.transcribe("speech.wav", model).text)
spec = mq.FolderSpec("Qwen/Qwen3-ASR-0.6B")  # what every file is decoded with (models by name: loaded once)
summary = mq.transcribe_files(["talks/"], spec, "out/", formats=["txt", "json"])  # resumable
aligner = mq.load("Qwen/Qwen3-ForcedAligner-0.6B")
words = mq.align("speech.wav", "the known text", aligner, "English")  # [Word(text, start, end), ...]
live = mq.LiveSession(model)  # live.feed(block) -> [mq.Event, ...]; live.stats: mq.LiveStats
vad = mq.load_vad()  # Silero VAD v6, real weights shipped: vad.speech_timestamps("speech.wav")
diarizer = mq.load("path/to/speaker-diarization-community-1")  # pyannote's release folder, no torch
turns = mq.diarize("meeting.wav", diarizer).turns  # [Turn(start, end, speaker), ...]

The names load lazily: `import mlx_qwen3asr` imports none of the model families, and each name's module
is imported on its first use (EXPORTS says where each lives).
"""

import importlib
from typing import Any

__version__ = "0.1.0"

# exported name -> the module (relative to this package) that defines it
EXPORTS = {
    **dict.fromkeys(("SAMPLE_RATE", "SampleStream", "load_audio", "log_mel_spectrogram", "prepare_audio"), ".audio"),
    "default_batch_size": ".decode.batch_size",
    **dict.fromkeys(("transcribe", "transcribe_batch"), ".decode.transcribe"),
    **dict.fromkeys(("align", "align_segments"), ".families.aligner.aligner"),
    "ForcedAligner": ".families.aligner.model",
    "FunAsrNano": ".families.fun_asr_nano.model",
    **dict.fromkeys(("Diarization", "Diarizer", "Turn", "diarize"), ".families.pyannote"),
    "ModelArgs": ".families.qwen3_asr.config",
    "SUPPORTED_LANGUAGES": ".families.qwen3_asr.languages",
    "Qwen3ASR": ".families.qwen3_asr.model",
    "Recogniser": ".families.recogniser",
    **dict.fromkeys(("FolderSpec", "LocalRunner", "RayRunner", "transcribe_files"), ".folders"),
    **dict.fromkeys(("DEFAULT_MODEL", "load"), ".loading.load"),
    "DecodeOptions": ".options",
    **dict.fromkeys(("Segment", "Transcription", "Word"), ".result"),
    **dict.fromkeys(("Event", "LiveSession", "LiveStats", "StreamingTranscriber", "Update"), ".streaming"),
    "Languages": ".text.languages",
    "Tokenizer": ".text.tokenizer",
    **dict.fromkeys(("SileroVad", "load_vad", "vad_by_name"), ".vad"),
    "EnergyVad": ".vad.energy",
}
__all__ = sorted(EXPORTS)


def __getattr__(name: str) -> Any:
    """An exported name, imported from its module on first use (then kept here)."""
    if name not in EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(EXPORTS[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
