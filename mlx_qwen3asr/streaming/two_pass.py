"""Two-pass live: partials from a fast first model, finals from the accurate one (WeNet's U2, FunASR's "2pass").

    open utterance -> its last window (at most PARTIAL_WINDOW_SECONDS; audio before it decoded once, kept)
      -> the first model's transcribe (SenseVoiceSmall: one encoder pass, CTC, no token loop) -> partial text
    finished utterance -> the final model's transcribe -> commit: exactly mq.transcribe(utterance, final_model)
    pause with its tail heard -> the final model's final of the closing audio, ahead (as without a first pass)

The two models share nothing but the audio: each has its own engine, options and prefix cache, and the first
model's text, language and cost never reach a decision (the segmenter decides by sample counts), so commits
are the same with and without it. Memory is the sum of the two models.

The window bounds a refresh: SenseVoiceSmall's attention spans its whole input (O(T^2)), so re-reading a long
open utterance would grow every refresh. Once the open audio is longer than the window, its first half (cut at
its quietest 100 ms) is decoded once and its text kept; the window starts there. A refresh then reads at most
PARTIAL_WINDOW_SECONDS (plus, once per half window of audio, the half it freezes), whatever the utterance's
length (scripts/bench/live.py --two-pass measures it: docs/live.md).

A first model that raises costs the partials only: one warning line, no partials for the rest of the session,
commits unchanged.
"""

import warnings
from dataclasses import replace
from typing import Optional

import numpy as np

from ..audio.samples import SAMPLE_RATE as RATE
from ..audio.split import quietest
from ..decode.prefix_cache import PrefixCache
from ..families.recogniser import Recogniser
from ..options import DecodeOptions
from .utterances import OfflineEngine

PARTIAL_WINDOW_SECONDS = 3.0  # SenseVoiceSmall real size, 2-core CPU: ~0.5 s a refresh (6 s: ~0.8 s; docs/live.md)
CUT_FRAME = RATE // 100  # the freeze cuts at the quietest 100 ms (10 of these 10 ms frames) of its range


def first_pass_options(options: DecodeOptions, model: Recogniser) -> DecodeOptions:
    """The session's options as the first model can take them: the language when its family takes it (else
    detected), itn when it has the switch, context and hotwords only when it takes a prompt; checked."""
    language = options.language if options.language in model.languages.names else None
    itn = options.itn and getattr(model, "takes_itn", False)
    if not getattr(model, "takes_context", True):
        options = replace(options, context="", hotwords=())
    return replace(options, language=language, itn=itn).check(model)


class TwoPassEngine:
    """An UtteranceEngine: partials from `first` on the open utterance's last window, finals (and the
    pause's prepared finals) from `final`. The language reported is the final model's."""

    def __init__(
        self, final: OfflineEngine, first: OfflineEngine, window_seconds: float = PARTIAL_WINDOW_SECONDS
    ) -> None:
        if window_seconds < 1.0:
            raise ValueError(f"window_seconds must be at least 1 s, got {window_seconds}")
        self.final_engine, self.first = final, first
        self.window = int(window_seconds * RATE)
        self.failure: Optional[str] = None  # why the first model's partials stopped, once one raised
        self.longest_read = 0  # the most samples the first model read in one call (tests, benchmarks)
        self._reset()

    @property
    def language(self) -> str:
        return self.final_engine.language

    def partial(self, audio: np.ndarray, voiced: Optional[np.ndarray] = None) -> Optional[str]:
        """The first model's text of the utterance so far; None once that model has failed."""
        if self.failure is not None:
            return None
        if len(audio) < self._frozen_at:  # a new utterance without a final in between (never expected)
            self._reset()
        try:
            while len(audio) - self._frozen_at > self.window:
                self._freeze(audio)
            text = self._first(audio[self._frozen_at :])
        except Exception as e:  # any failure of the first model: it costs the partials, never a commit
            self.failure = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            warnings.warn(f"the partials model failed ({self.failure}); no partials from now on", stacklevel=3)
            return None
        return self._joined(text)

    def final(self, audio: np.ndarray) -> str:
        self._reset()
        return self.final_engine.final(audio)

    def prepare(self, audio: np.ndarray) -> Optional[str]:
        return self.final_engine.prepare(audio)

    def warm_up(self) -> None:
        self.final_engine.warm_up()
        self.first.warm_up()

    def _first(self, audio: np.ndarray) -> str:
        self.longest_read = max(self.longest_read, len(audio))
        return self.first.partial(audio).strip()

    def _freeze(self, audio: np.ndarray) -> None:
        """Decode the window's first half once, ending at the quietest 100 ms between a quarter and three
        quarters of the window, and keep its text."""
        lo, hi = self._frozen_at + self.window // 4, self._frozen_at + 3 * self.window // 4
        frames = audio[lo:hi][: (hi - lo) // CUT_FRAME * CUT_FRAME].reshape(-1, CUT_FRAME)
        cut = lo + quietest(np.mean(frames.astype(np.float64) ** 2, axis=1), 10) * CUT_FRAME
        self._frozen_text = self._joined(self._first(audio[self._frozen_at : cut]))
        self._frozen_at = cut

    def _joined(self, text: str) -> str:
        return self.first.model.join_text(self._frozen_text, text).strip() if self._frozen_text else text

    def _reset(self) -> None:
        self._frozen_at, self._frozen_text = 0, ""


def two_pass_engine(
    final_model: Recogniser,
    first_model: Recogniser,
    options: DecodeOptions = DecodeOptions(),
    prefix_cache: Optional[PrefixCache] = None,
    window_seconds: float = PARTIAL_WINDOW_SECONDS,
) -> TwoPassEngine:
    """Finals: transcribe on `final_model` with `options` (checked against it by the caller) and
    `prefix_cache` (as OfflineEngine's); partials: `first_model` with first_pass_options (its own prefix cache)."""
    if first_model is final_model:
        raise ValueError("partials_model is the final model itself: drop it (its own partials are the default)")
    first = OfflineEngine(first_model, first_pass_options(options, first_model))
    return TwoPassEngine(OfflineEngine(final_model, options, prefix_cache), first, window_seconds)
