"""The one place a live session meets the recogniser: an utterance's audio -> text.

    UtteranceEngine.partial(audio of the open utterance so far, its speech flags) -> tentative text (shown dimmed)
    UtteranceEngine.final(audio of a finished utterance)        -> committed text

`final` is always `mlx_qwen3asr.decode.transcribe(audio, model, ...).text`, so what a live session commits is
exactly what offline transcription gives for the same utterance. Partials come from the library's
streaming engine when it is there (it feeds only the new audio, with the speech flags the session's
voice detector gave it: voice is judged once), else from `transcribe` on the audio so far (cost grows
with the utterance; the pipeline bounds how often it is asked).

With the streaming engine the final reuses the partials' work (`reuse=True`): the same decode as
transcribe's (the utterance as one chunk, the same prompt, the same stop rules and token budget,
no forced prefix), but the last partial's tokens are the draft of one verification pass (the
model's own choice after each of them: the longest agreeing run is accepted, the first
disagreement is the model's next token, greedy steps go on from there), and the encoder windows
the partials already encoded are kept while their input is provably unchanged (families/qwen3_asr/encoder_cache.py's
rule). The tokens are transcribe's: a verification pass computes the same logits as step-by-step
decoding, up to float round-off in the products' blocking (~1e-6 relative), which changes a greedy
choice only where two tokens tie that closely. Cost: when the partial was right, the final is
the encoder's new windows and one forward pass instead of one decoder step per token (measured
in docs/live.md). Utterances transcribe would split (over 30 s) or skip (no speech) go to it.
"""

from typing import Optional, Protocol

import numpy as np

from ..audio.samples import SAMPLE_RATE as RATE
from ..decode.answer import heard_answer
from ..decode.generate import Decoding
from ..decode.prefix_cache import PrefixCache, prefix_cache_for
from ..decode.transcribe import has_speech, transcribe_checked
from ..families.recogniser import Recogniser
from ..options import DecodeOptions
from .transcriber import StreamingTranscriber
from .window_decoder import window_decoder

WARM_UP_SECONDS = 1.0
STREAM_CHUNK_SECONDS = 1.0
# How tentative text is made: the streaming engine (the default), re-decoding the utterance so far, or
# not at all (finals only). The one spelling: LiveSession's `partials=`, the app's and the bench's --partials.
PARTIALS = ("streaming", "offline", "off")


def warm_up_audio() -> np.ndarray:
    """0.3 s of silence, then noise at -30 dBFS: speech to the voice-activity rule (a sound that
    starts after a quiet moment), so neither engine skips the warm-up as silence."""
    n, quiet = int(WARM_UP_SECONDS * RATE), int(0.3 * RATE)
    noise = np.random.default_rng(0).standard_normal(n - quiet) * 0.03
    return np.concatenate([np.zeros(quiet), noise]).astype(np.float32)


class UtteranceEngine(Protocol):
    language: str  # the language of the last final (or partial), "" while unknown

    # voiced: one speech flag per sample of audio, as the session's voice detector judged it (None: not judged);
    # None back: no partial now (two_pass.py's engine once its first model failed)
    def partial(self, audio: np.ndarray, voiced: Optional[np.ndarray] = None) -> Optional[str]: ...

    def final(self, audio: np.ndarray) -> str: ...

    # Optional: final(audio) ahead of time, kept for final(audio); None if the engine does not.
    def prepare(self, audio: np.ndarray) -> Optional[str]: ...


class OfflineEngine:
    """Partials and finals both from `transcribe`'s engine on the whole utterance so far; `options` were checked
    against the model at the session's door (LiveSession), so no final checks them again.

    prefix_cache: the prompt head's keys and values computed once for the session (None), taken from
    a shared PrefixCache, or never (PrefixCache.off); every utterance (and partial) starts from them."""

    def __init__(
        self, model: Recogniser, options: DecodeOptions = DecodeOptions(), prefix_cache: Optional[PrefixCache] = None
    ) -> None:
        self.model, self.options = model, options
        self.language = options.language or ""
        self.prefixes = prefix_cache_for(model, prefix_cache)
        self._prepared: Optional[tuple[np.ndarray, str, str]] = None  # (audio, text, language)

    def prepare(self, audio: np.ndarray) -> Optional[str]:
        """The final text of `audio`, computed now (during a pause that may end the utterance) and
        kept: final() of the same audio then costs nothing."""
        self._prepared = None
        text = self._final(audio)
        self._prepared = (audio, text, self.language)
        return text

    def final(self, audio: np.ndarray) -> str:
        prepared, self._prepared = self._prepared, None
        if prepared is not None and np.array_equal(prepared[0], audio):
            self.language = prepared[2]
            return prepared[1]
        return self._final(audio)

    def _final(self, audio: np.ndarray) -> str:
        result = transcribe_checked([audio], self.model, [self.options], prefix_cache=self.prefixes)[0]
        self.language = result.language or self.language
        return result.text

    def partial(self, audio: np.ndarray, voiced: Optional[np.ndarray] = None) -> str:
        return self._final(audio)  # transcribe's, flags unused: the partial is what the final would be now

    def warm_up(self) -> None:
        """One short decode, so the first utterance does not pay for first-call set-up."""
        options = DecodeOptions(self.options.language, self.options.context, 2, self.options.hotwords)
        transcribe_checked([warm_up_audio()], self.model, [options], prefix_cache=self.prefixes)


class StreamingEngine(OfflineEngine):
    """Partials from `StreamingTranscriber`, pushed only the whole chunks of the utterance's audio it has
    not seen yet: the LiveSession's samples, converted once (no second resampler pass), buffered
    once (an unfinished chunk stays in the utterance's audio until it is whole) and judged once (the
    segmenter's speech flags go with them: the window engine decodes what the session's VAD heard).

    It decodes once per STREAM_CHUNK_SECONDS of audio (the library's default of 2 s would show at
    most one or two updates in a typical 2-5 s utterance) and starts afresh for every utterance.
    """

    def __init__(
        self,
        model: Recogniser,
        options: DecodeOptions = DecodeOptions(),
        prefix_cache: Optional[PrefixCache] = None,
        reuse: bool = True,
    ) -> None:
        """reuse: finals verify the last partial as a draft and keep its encoder windows (the same
        text as without, less work); False decodes each final from scratch (for benchmarks)."""
        super().__init__(model, options, prefix_cache)
        self.reuse = reuse
        self.last_final: Optional[Decoding] = None  # the last reusing final's decode (tests, benchmarks)
        self._stream = StreamingTranscriber.on_decoder(  # the session checked the options: its decoder is given
            window_decoder(model, options, prefix_cache=self.prefixes), options, chunk_seconds=STREAM_CHUNK_SECONDS
        )
        self._fed = 0

    def partial(self, audio: np.ndarray, voiced: Optional[np.ndarray] = None) -> str:
        """voiced None (a caller without a VAD): the stream judges voice by vad/energy.py's energy rule."""
        if len(audio) < self._fed:  # a new utterance without a final in between (never expected)
            self._restart()
        new = slice(self._fed, self._fed + (len(audio) - self._fed) // self._stream.chunk * self._stream.chunk)
        update = self._stream.push(audio[new], None if voiced is None else voiced[new])  # the rest waits in `audio`
        self._fed = new.stop
        self.language = update.language or self.language
        return update.text.strip()

    def prepare(self, audio: np.ndarray) -> Optional[str]:
        """As OfflineEngine's (None without reuse: then finals are today's, decoded when due). The
        streaming session goes on: the speaker may not be done."""
        return super().prepare(audio) if self.reuse else None

    def final(self, audio: np.ndarray) -> str:
        text = super().final(audio)
        self._restart()
        return text

    def _final(self, audio: np.ndarray) -> str:
        if not self.reuse or len(audio) > self.model.chunk_seconds * RATE or not has_speech(audio):
            return super()._final(audio)
        result = self._stream.decode_whole(audio, self.options.budget(len(audio) / RATE))
        self.last_final = result
        answer = heard_answer(self.model, result.token_ids, self.options, audio)  # read as transcribe_chunks reads
        self.language = answer.language or self.language
        return answer.text.strip()

    def warm_up(self) -> None:
        super().warm_up()
        self.partial(warm_up_audio())
        self._restart()

    def _restart(self) -> None:
        self._stream.reset()
        self._fed = 0


def make_engine(
    model: Recogniser,
    partials: str = "streaming",
    options: DecodeOptions = DecodeOptions(),
    prefix_cache: Optional[PrefixCache] = None,
    reuse: bool = True,
) -> OfflineEngine:
    """partials (one of PARTIALS): "streaming" (the streaming engine), "offline" (re-decode the utterance
    so far) or "off" (finals only: transcribe's). prefix_cache: as in OfflineEngine. reuse: the
    streaming engine's finals reuse the partials' work."""
    check_partials(partials)
    if partials != "streaming" or hasattr(model, "transcribe_chunks"):  # no decoder loop (CTC): one pass per partial
        return OfflineEngine(model, options, prefix_cache)
    return StreamingEngine(model, options, prefix_cache, reuse)


def check_partials(partials: str) -> None:
    """ValueError (one line) unless `partials` is one of PARTIALS."""
    if partials not in PARTIALS:
        raise ValueError(f"partials must be one of {', '.join(map(repr, PARTIALS))}, got {partials!r}")
