"""What the engine may ask of a recogniser (Qwen3-ASR, Fun-ASR-Nano): one Protocol, nothing else.

    wave -> features(wave) -> encode(features) [n_audio, hidden]
    prompt_ids(n_audio, context, language, hotwords) = prompt_parts(...) head + n_audio pads + tail
    embed(ids, features) -> __call__ / decode_step (the Qwen3 decoder: speech_lm.py) -> token ids
    -> tokenizer.decode -> parse_output(raw, forced language) -> (language, text); pieces -> join_text

The decode loop, batching, streaming, the prefix cache, the CLI, the app and the server use only these
names: they never test a model's family by name or by isinstance. A family states its facts here (its
languages, audio token rate, chunk limits, quantization rules) and the registry (registry.py) maps a
folder to it. SpeechLM (speech_lm.py) is the base class that gives the decoder's part. `task` says what a loaded model is for ("transcribe" here, "align" for the aligner).

A recogniser without a decoder loop (SenseVoiceSmall: one encoder pass and a CTC head; Paraformer: CIF and one
decoder pass) gives instead of the prompt and decoder names: `transcribe_chunks(waves, options) -> [Segment]`
(the engine calls it when a model has it: decode/transcribe.py; live partials then take the offline engine),
`default_batch_size(seconds)`
(no KV cache to size), `frame_log_probs(wave)` (the converter's fidelity check), `takes_context = False`
(context and hotwords refused by DecodeOptions.check), `takes_itn = True` (DecodeOptions.itn), and for a
family that loads its own release: `converted_config()` and `side_files()` (loading/convert/whole.py).
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, Protocol

import mlx.core as mx
import numpy as np

from ..layers.cache import KVCache
from ..layers.step import DecodeStep
from ..text.languages import Languages


class Recogniser(Protocol):
    task: str  # "transcribe"
    args: Any  # the family's args from config.json (.text: the decoder's sizes; .quantization)
    tokenizer: Any  # the checkpoint's Tokenizer (set by load)
    path: Optional[Path]  # the folder it was loaded from (set by load)
    languages: Languages  # the languages it can be told, by name and ISO-639-1 code
    audio_tokens_per_second: float  # audio features per second of audio (KV-cache sizing)
    chunk_seconds: float  # the longest audio decoded in one pass by default (longer audio is split)
    max_context_tokens: int  # the longest context (hotwords included) it is given, in its tokenizer's tokens
    keep_float: tuple[str, ...]  # module path prefixes the converter never quantizes
    audio_prefixes: tuple[str, ...]  # module path prefixes quantized at the encoder's bits
    cpu_swaps: dict[type, type]  # its modules' CPU versions (installed with the decoder's on the CPU)
    gpu_installs: tuple  # functions(model) swapping in its own GPU path (installed with the decoder's on a GPU)
    tokenizer_split_pattern: Optional[str]  # another pre-tokenizer split than the tokenizer's own

    @property
    def dtype(self) -> mx.Dtype: ...

    def encoder_cache(self) -> Optional[Any]:
        """What keeps a growing streaming window's encoder output (features(audio) -> (features, stable
        tokens), reset()), or None when each step re-encodes the window."""

    def features(self, wave: np.ndarray) -> mx.array: ...

    def encode(self, features: mx.array) -> mx.array: ...

    def encode_many(self, features: Sequence[mx.array]) -> list[mx.array]: ...

    def prompt_ids(
        self, n_audio: int, context: str = "", language: Optional[str] = None, hotwords: Sequence[str] = ()
    ) -> list[int]: ...

    def prompt_parts(
        self, context: str = "", language: Optional[str] = None, hotwords: Sequence[str] = ()
    ) -> tuple[list[int], list[int]]: ...

    def parse_output(self, raw: str, forced_language: Optional[str] = None) -> tuple[str, str]: ...

    def parse_partial(self, raw: str, forced_language: Optional[str] = None) -> tuple[str, str]: ...

    def join_text(self, base: str, piece: str) -> str: ...

    def embed(self, prompt_ids: mx.array, audio_features: Optional[mx.array] = None) -> mx.array: ...

    def logits(self, hidden: mx.array) -> mx.array: ...

    def __call__(self, embeddings: mx.array, cache: Optional[list[KVCache]] = None, last_only: bool = True): ...

    def decode_step(self) -> DecodeStep:
        """The compiled one-token step on a one-row cache (the decode loop's, for one row)."""

    def make_cache(self) -> list[KVCache]: ...

    def layer_stacks(self) -> tuple[tuple[str, Any], ...]:
        """(path, owner) of each stack of layers (owner.layers), for the converter."""

    def sanitize(self, weights: dict[str, mx.array]) -> dict[str, mx.array]: ...


def encode_audio(model: Recogniser, wave: np.ndarray) -> mx.array:
    """Waveform -> the model's features of the whole clip -> audio features [n_audio_tokens, hidden]."""
    return model.encode(model.features(wave))


def encode_audios(model: Recogniser, waves: list[np.ndarray]) -> list[mx.array]:
    """Several waveforms through the encoder in one pass, each exactly as `encode_audio` alone gives it
    (each clip's features are computed on their own: the mel clamps to its own clip's maximum)."""
    return model.encode_many([model.features(wave) for wave in waves])
