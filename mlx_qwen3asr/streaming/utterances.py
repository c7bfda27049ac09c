"""The one place a live session meets the recogniser: an utterance's audio -> text.

    UtteranceEngine.partial(audio of the open utterance so far) -> tentative text (shown dimmed)
    UtteranceEngine.final(audio of a finished utterance)        -> committed text

`final` is always `mlx_qwen3asr.transcribe(audio, model, ...).text`, so what a live session commits is
exactly what offline transcription gives for the same utterance. Partials come from the library's
streaming engine when it is there (it feeds only the new audio), else from `transcribe` on the
audio so far (cost grows with the utterance; the pipeline bounds how often it is asked).
"""

from typing import Protocol, Union

import numpy as np

from ..audio.samples import SAMPLE_RATE as RATE
from ..model.model import Qwen3ASR
from ..options import DecodeOptions
from ..prefix_cache import PrefixCache, prefix_cache_for
from ..transcribe import transcribe
from .session import StreamingOptions, StreamingTranscriber

WARM_UP_SECONDS = 1.0
STREAM_CHUNK_SECONDS = 1.0


def warm_up_audio() -> np.ndarray:
    """0.3 s of silence, then noise at -30 dBFS: speech to the voice-activity rule (a sound that
    starts after a quiet moment), so neither engine skips the warm-up as silence."""
    n, quiet = int(WARM_UP_SECONDS * RATE), int(0.3 * RATE)
    noise = np.random.default_rng(0).standard_normal(n - quiet) * 0.03
    return np.concatenate([np.zeros(quiet), noise]).astype(np.float32)


class UtteranceEngine(Protocol):
    language: str  # the language of the last final (or partial), "" while unknown

    def partial(self, audio: np.ndarray) -> str: ...

    def final(self, audio: np.ndarray) -> str: ...


class OfflineEngine:
    """Partials and finals both from `transcribe` on the whole utterance so far.

    prefix_cache: the prompt head's keys and values computed once for the session (True), never
    (False), or taken from a shared PrefixCache; every utterance (and partial) starts from them."""

    def __init__(
        self, model: Qwen3ASR, options: DecodeOptions = DecodeOptions(), prefix_cache: Union[PrefixCache, bool] = True
    ) -> None:
        self.model, self.options = model, options
        self.language = options.language or ""
        self.prefixes = prefix_cache_for(model, prefix_cache)

    def final(self, audio: np.ndarray) -> str:
        result = transcribe(audio, self.model, options=self.options, prefix_cache=self.prefixes or False)
        self.language = result.language or self.language
        return result.text

    def partial(self, audio: np.ndarray) -> str:
        return self.final(audio)

    def warm_up(self) -> None:
        """One short decode, so the first utterance does not pay for first-call set-up."""
        options = DecodeOptions(self.options.language, self.options.context, max_new_tokens=2)
        transcribe(warm_up_audio(), self.model, options=options, prefix_cache=self.prefixes or False)


class StreamingEngine(OfflineEngine):
    """Partials from `StreamingTranscriber`, fed only the audio it has not seen yet.

    It decodes once per STREAM_CHUNK_SECONDS of audio (the library's default of 2 s would show at
    most one or two updates in a typical 2-5 s utterance) and starts afresh for every utterance.
    """

    def __init__(
        self, model: Qwen3ASR, options: DecodeOptions = DecodeOptions(), prefix_cache: Union[PrefixCache, bool] = True
    ) -> None:
        super().__init__(model, options, prefix_cache)
        self._stream = StreamingTranscriber(
            model,
            options.language,
            options.context,
            chunk_seconds=STREAM_CHUNK_SECONDS,
            options=StreamingOptions(max_new_tokens=options.max_new_tokens),
            prefix_cache=self.prefixes or False,
        )
        self._fed = 0

    def partial(self, audio: np.ndarray) -> str:
        if len(audio) < self._fed:  # a new utterance without a final in between (never expected)
            self._restart()
        update = self._stream.feed(audio[self._fed :])
        self._fed = len(audio)
        self.language = update.language or self.language
        return update.text.strip()

    def final(self, audio: np.ndarray) -> str:
        self._restart()
        return super().final(audio)

    def warm_up(self) -> None:
        super().warm_up()
        self.partial(warm_up_audio())
        self._restart()

    def _restart(self) -> None:
        self._stream.reset()
        self._fed = 0


def make_engine(
    model: Qwen3ASR,
    partials: str = "streaming",
    options: DecodeOptions = DecodeOptions(),
    prefix_cache: Union[PrefixCache, bool] = True,
) -> OfflineEngine:
    """partials: "streaming" (the streaming engine; "auto" is the same), or "offline" (re-decode the
    utterance so far). prefix_cache: as in OfflineEngine."""
    kind = OfflineEngine if partials == "offline" else StreamingEngine
    return kind(model, options, prefix_cache)
