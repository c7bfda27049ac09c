"""The one place the app meets the recogniser: an utterance's audio -> text.

    UtteranceEngine.partial(audio of the open utterance so far) -> tentative text (shown dimmed)
    UtteranceEngine.final(audio of a finished utterance)        -> committed text

`final` is always `mlx_qwen3asr.transcribe(audio, model, ...).text`, so what the app commits is
exactly what offline transcription gives for the same utterance. Partials come from the library's
streaming engine when it is there (it feeds only the new audio), else from `transcribe` on the
audio so far (cost grows with the utterance; the pipeline bounds how often it is asked).
"""

from typing import Protocol

import numpy as np

import mlx_qwen3asr as mq

RATE = mq.SAMPLE_RATE
WARM_UP_SECONDS = 1.0
STREAM_CHUNK_SECONDS = 1.0


def warm_up_audio() -> np.ndarray:
    """Quiet noise (-40 dBFS): loud enough that no engine skips it as silence."""
    noise = np.random.default_rng(0).standard_normal(int(WARM_UP_SECONDS * RATE)) * 0.01
    return noise.astype(np.float32)


class UtteranceEngine(Protocol):
    language: str  # the language of the last final (or partial), "" while unknown

    def partial(self, audio: np.ndarray) -> str: ...

    def final(self, audio: np.ndarray) -> str: ...


class OfflineEngine:
    """Partials and finals both from `mq.transcribe` on the whole utterance so far."""

    def __init__(self, model: "mq.Qwen3ASR", options: mq.DecodeOptions = mq.DecodeOptions()) -> None:
        self.model, self.options = model, options
        self.language = options.language or ""

    def final(self, audio: np.ndarray) -> str:
        result = mq.transcribe(audio, self.model, options=self.options)
        self.language = result.language or self.language
        return result.text

    def partial(self, audio: np.ndarray) -> str:
        return self.final(audio)

    def warm_up(self) -> None:
        """One short decode, so the first utterance does not pay for first-call set-up."""
        options = mq.DecodeOptions(self.options.language, self.options.context, max_new_tokens=2)
        mq.transcribe(warm_up_audio(), self.model, options=options)


class StreamingEngine(OfflineEngine):
    """Partials from `mq.StreamingTranscriber`, fed only the audio it has not seen yet.

    It decodes once per STREAM_CHUNK_SECONDS of audio (the library's default of 2 s would show at
    most one or two updates in a typical 2-5 s utterance) and starts afresh for every utterance.
    """

    def __init__(self, model: "mq.Qwen3ASR", options: mq.DecodeOptions = mq.DecodeOptions()) -> None:
        from mlx_qwen3asr.streaming import StreamingOptions

        super().__init__(model, options)
        self._stream = mq.StreamingTranscriber(model, options.language, options.context,
                                               chunk_seconds=STREAM_CHUNK_SECONDS,
                                               options=StreamingOptions(max_new_tokens=options.max_new_tokens))
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


def make_engine(model: "mq.Qwen3ASR", partials: str = "auto",
                options: mq.DecodeOptions = mq.DecodeOptions()) -> OfflineEngine:
    """partials: "streaming" or "auto" (the streaming engine), or "offline" (re-decode the utterance)."""
    kind = OfflineEngine if partials == "offline" else StreamingEngine
    return kind(model, options)
