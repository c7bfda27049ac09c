"""The Silero VAD a user holds: `load_vad()` -> SileroVad, with probabilities, speech_timestamps and streams.

    audio (path | array at 16 kHz | (array, rate)) -> prepare_audio: 16 kHz mono float32, resampled as
      everywhere in this package (soxr) -> VadStream from a fresh state -> one probability per 512 samples
      -> timestamps.py's rule -> [(start_s, end_s), ...]

The weights are package data (weights.safetensors, with LICENSE and SOURCE.md beside it): no download,
no torch. They are the .jit's that silero-vad 6.2.3's `load_silero_vad()` runs, checked by sha256 when
scripts/extract_silero_vad.py wrote them.
"""

from pathlib import Path
from typing import Optional, Union

import mlx.core as mx
import numpy as np

from ..audio.io import AudioInput, prepare_audio
from ..families.silero.fast import FastModel
from ..families.silero.model import SAMPLE_RATE, WEIGHTS, Model
from .endpoint import SpeechFrames
from .energy import EnergyVad
from .speech import speech_ranges
from .stream import VadStream, WindowModel, probabilities_of
from .timestamps import SpeechRule, speech_samples, to_seconds

VAD_CHOICES = ("silero", "energy")  # --vad of the CLI, the app and the server: this model, or vad/energy.py's rule


class SileroVad:
    """Silero VAD v6 (16 kHz): speech probabilities and speech segments of audio."""

    name = "silero"
    sample_rate = SAMPLE_RATE

    def __init__(self, model: WindowModel) -> None:
        self.model = model  # load_vad: fast.py's FastModel, model.py's math refolded for the CPU

    def probabilities(self, audio: AudioInput) -> np.ndarray:
        """float32, one per 512-sample (32 ms) window of the 16 kHz audio, ceil(n / 512) of them:
        window i covers samples 512 * i ..., the last one zero-padded; the reference's streaming way."""
        return probabilities_of(self.model, prepare_audio(audio))

    def speech_timestamps(
        self,
        audio: AudioInput,
        threshold: float = 0.5,
        min_speech_duration_ms: float = 250,
        min_silence_duration_ms: float = 100,
        speech_pad_ms: float = 30,
        neg_threshold: Optional[float] = None,
    ) -> list[tuple[float, float]]:
        """[(start_s, end_s), ...] of speech: the reference's get_speech_timestamps(..., return_seconds=True)
        with the same arguments (0.1 s steps; seconds on the 16 kHz timeline)."""
        rule = SpeechRule(threshold, min_speech_duration_ms, min_silence_duration_ms, speech_pad_ms, neg_threshold)
        wave = prepare_audio(audio)
        return to_seconds(self.speech_samples(wave, rule), len(wave))

    def speech_samples(self, wave: np.ndarray, rule: SpeechRule = SpeechRule()) -> list[tuple[int, int]]:
        """Speech segments of a 16 kHz float32 wave as (start, end) sample indices (no rounding)."""
        return speech_samples(self.probabilities(wave).tolist(), len(wave), rule)

    def stream(self, batch: int = 1) -> VadStream:
        """A live stream (or `batch` of them): push 16 kHz blocks, get each completed window's probability."""
        return VadStream(self.model, batch)

    def frame_judge(self, frame: int, rule: SpeechRule = SpeechRule()) -> SpeechFrames:
        """The live segmenter's judge of `frame`-sample frames, on a stream of its own (endpoint.py)."""
        return SpeechFrames(self.stream(), frame, rule)

    def speech_pieces(self, wave: np.ndarray, chunk_seconds: float) -> list[tuple[int, int]]:
        """(start, end) sample ranges of a 16 kHz wave to decode offline: its speech (speech.py)."""
        return speech_ranges(self, wave, chunk_seconds)


def load_vad(path: Union[str, Path, None] = None) -> SileroVad:
    """The real Silero VAD v6 (16 kHz) from the weights shipped with this package (or a file like them)."""
    path = Path(path) if path is not None else WEIGHTS
    if not path.exists():
        raise FileNotFoundError(
            f"No Silero VAD weights at {path}: reinstall mlx-qwen3asr, or run scripts/extract_silero_vad.py"
        )
    model = Model()
    model.load_weights(list(Model.sanitize(mx.load(str(path))).items()), strict=True)
    mx.eval(model.parameters())
    return SileroVad(FastModel(model))


def vad_by_name(name: str) -> Union[SileroVad, EnergyVad]:
    """--vad's value -> the VAD to hand in: "silero" loads this one, "energy" is vad/energy.py's rule."""
    if name not in VAD_CHOICES:
        raise ValueError(f"--vad must be one of {', '.join(VAD_CHOICES)}, got {name!r}")
    return load_vad() if name == "silero" else EnergyVad()
