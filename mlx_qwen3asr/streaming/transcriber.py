"""Live transcription: audio arriving in pieces -> committed text (final) + a tentative tail.
`feed(pcm)` and `finish()` (everything committed; feeding again continues) return an Update.

`Update.committed` is the whole committed text of the session and only ever grows (each update's
`committed` starts with the previous one; `new_committed` is what this call added). `tentative`
is the current guess for what follows it; `committed + tentative` is the full current text.
`options` (DecodeOptions: language, context, hotwords, and max_new_tokens, a cap per decoder run for
random-weight models). Knobs (keyword-only): chunk_seconds=2.0 (>= 0.5), window_seconds=30.0,
max_prefix_tokens=150, rollback_tokens=5; `tuning=StreamingTuning(...)` switches each optimisation
off (the text stays the same, only the cost changes).

Data flow (every `chunk_seconds` of audio is one step):
    pcm -> pending samples -> chunk [chunk_seconds * 16000]
    -> the window: the audio since the window started (at most window_seconds)
       quiet chunk (no speech by vad/energy.py's rule, or by the flags pushed with it): no decoder
       run; a window that has heard nothing keeps only the last 0.5 s; CLOSE_PAUSE_SECONDS of
       quiet after speech closes the window, cut 1 s into the pause
    -> decoder run (WindowDecoder) on the whole window audio, the prompt ending in the forced prefix:
       the last run's tokens minus their last `rollback_tokens`, backing off while that would split
       a UTF-8 character (none for the first UNFIXED_DECODES runs of a window), never shorter than
       what is committed. The official recipe; its prefix is re-tokenized text, ours stays in token
       ids, and ours never rolls back into text it already forced.
    -> the forced prefix is committed (it can never change again: every later run forces it)
    -> closing a window (a pause, a repetition loop, or full: audio or prefix at its cap, cut at
       the quietest 100 ms of its last 5 s) decodes it once more and commits all of its text.
Cost per step is bounded by the window, not by the session: flat for hours.
"""

import time
from collections.abc import Callable
from typing import Optional

import numpy as np

from ..audio.samples import SAMPLE_RATE, SampleStream
from ..audio.split import split_audio
from ..decode.answer import read_partial
from ..decode.generate import Decoding
from ..decode.prefix_cache import PrefixCache
from ..decode.transcribe import MIN_SECONDS
from ..families.recogniser import Recogniser
from ..options import DecodeOptions, token_budget
from ..runtime.allocator import release_window
from ..runtime.typing import Unpack
from ..vad.energy import PauseTracker, VoiceActivity
from .input import FRAME, HeldSamples, speech_frames
from .updates import StreamingTuning, StreamSettings, Update, Window
from .window_decoder import Decoder, final_text, joined, rollback, window_decoder

LEAD_IN_SECONDS = 0.5  # quiet audio kept before speech starts (soft onsets)
CLOSE_PAUSE_SECONDS = 2.0  # this much quiet after speech ends the window: its text becomes final
UNFIXED_DECODES = 2  # the official `unfixed_chunk_num`: first runs of a window force no prefix
SEARCH_SECONDS = 5.0  # a full window is cut at the quietest 100 ms of its last 5 s
NO_AUDIO = (np.zeros(0, np.float32), np.zeros(0, bool))  # (samples, their speech flags)


class StreamingTranscriber:
    """A live transcription session over one model. Not thread-safe: feed from one thread."""

    def __init__(
        self,
        model: Recogniser,
        options: DecodeOptions = DecodeOptions(),
        *,
        tuning: StreamingTuning = StreamingTuning(),
        prefix_cache: Optional[PrefixCache] = None,
        **settings: Unpack[StreamSettings],
    ):
        """The checking constructor: `options` checked against `model` (once), its window decoder made.
        options: language, context, hotwords as in `transcribe`; max_new_tokens caps each decoder run
        (default: the window's token budget; random-weight models, which never stop, need a cap).
        tuning: the optimisations' switches (tests and benchmarks).
        prefix_cache: as in `transcribe` (PrefixCache.off(model): prefilled within the session's first
        prompt, kept when kv_reuse is on). settings: StreamSettings (sample_rate, chunk_seconds, ...)."""
        options.check(model)
        self._start(window_decoder(model, options, tuning, prefix_cache), options, tuning, **settings)

    @classmethod
    def on_decoder(
        cls,
        decoder: Decoder,
        options: DecodeOptions = DecodeOptions(),
        tuning: StreamingTuning = StreamingTuning(),
        **settings: Unpack[StreamSettings],
    ) -> "StreamingTranscriber":
        """A session on a window decoder its caller made with these options, having checked them
        (window_decoder: a live session's streaming engine, the server after its handshake; a test's fake)."""
        stream = cls.__new__(cls)
        stream._start(decoder, options, tuning, **settings)
        return stream

    def _start(
        self,
        decoder: Decoder,
        options: DecodeOptions,
        tuning: StreamingTuning,
        *,
        sample_rate: int = SAMPLE_RATE,
        chunk_seconds: float = 2.0,
        window_seconds: float = 30.0,
        max_prefix_tokens: int = 150,
        rollback_tokens: int = 5,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if chunk_seconds < 0.5:
            raise ValueError(f"chunk_seconds must be at least 0.5, got {chunk_seconds}")
        shortest = max(2 * chunk_seconds, SEARCH_SECONDS + chunk_seconds)
        if window_seconds < shortest:
            raise ValueError(f"window_seconds={window_seconds} is too small: use at least {shortest}")
        self.options, self.language = options, options.language
        self.decoder, self.tuning, self.clock, self.sample_rate = decoder, tuning, clock, sample_rate
        self.chunk = int(round(chunk_seconds * SAMPLE_RATE))
        self.window_samples = int(window_seconds * SAMPLE_RATE)
        self.max_prefix_tokens, self.rollback_tokens = max_prefix_tokens, rollback_tokens
        self.reset()

    def reset(self) -> None:
        """Forget the session: text, audio and caches."""
        self.committed, self.detected_language, self.audio_samples = "", "", 0
        self._compute, self._steps = 0.0, 0
        self.pending = HeldSamples()
        self.incoming = SampleStream(self.sample_rate)
        self.activity = VoiceActivity()  # judges each sample once, as a step takes it (unless pushed with flags)
        self._new_window(*NO_AUDIO)

    def feed(self, pcm: np.ndarray) -> Update:
        """Add samples (any length; float in [-1, 1] or integers; mono, or 2-D by the layout rule of
        mlx_qwen3asr.audio.samples) at the session's sample_rate; run the steps that are due."""
        return self.push(self.incoming.convert(pcm))

    def push(self, samples: np.ndarray, voiced: Optional[np.ndarray] = None) -> Update:
        """feed() of samples already 16 kHz mono float32 (a LiveSession's, converted once): whole chunks
        are stepped as they lie in `samples`; only a chunk's unfinished start waits in `pending`.
        voiced: the samples' speech flags (one per sample) from the caller's voice detector, which has
        judged them already (a LiveSession's segmenter); None: vad/energy.py's rule judges them here, as
        each step takes them. A session's blocks all come with flags, or none do."""
        if voiced is not None and len(voiced) != len(samples):
            raise ValueError(f"voiced needs one flag per sample: {len(voiced)} flags for {len(samples)} samples")
        self.audio_samples += samples.size
        before, self._compute, self._steps = self.committed, 0.0, 0
        start = 0
        if self.pending.size:  # a chunk begun by earlier samples
            start = min(len(samples), self.chunk - self.pending.size)
            self.pending.append(samples[:start], None if voiced is None else voiced[:start])
            if self.pending.size == self.chunk:
                self._step(*self.pending.take())
        while len(samples) - start >= self.chunk:
            end = start + self.chunk
            self._step(samples[start:end], None if voiced is None else voiced[start:end])
            start = end
        self.pending.append(samples[start:], None if voiced is None else voiced[start:])
        return self._update(before)

    def finish(self) -> Update:
        """Decode what is left and commit everything (tentative becomes ""). Feeding may go on."""
        before, self._compute, self._steps = self.committed, 0.0, 0
        resampled_tail = self.incoming.flush()  # audio fed, still inside the resampler: counted too
        self.audio_samples += resampled_tail.size
        self.pending.append(resampled_tail, None)  # feed()'s: no flags
        tail, voiced = self.pending.take()
        _, pause = self._add_audio(tail, self.activity.push(tail) if voiced is None else voiced)
        if pause is not None:
            self._close(pause)
        self._close(len(self.window.audio))
        return self._update(before)

    def decode_whole(self, audio: np.ndarray, max_new_tokens: int) -> Decoding:
        """Decode `audio` whole from the prompt, as offline transcription of one chunk does (no forced
        prefix), reusing this session's work: the window's last run as a draft, verified in one
        forward pass, and its encoder windows when `audio` extends the window's audio (else the
        encoder starts afresh). The session goes on as before (feeding on extends the window)."""
        window = self.window
        extends = len(window.audio) <= len(audio) and np.array_equal(window.audio, audio[: len(window.audio)])
        if not extends:
            self.decoder.reset()  # its cached encoder windows are of other audio
        draft = window.raw if self.committed == "" else []  # other windows' ids begin mid-text: no draft
        result = self.decoder.decode(audio, [], draft, max_new_tokens)
        if not extends:
            self.decoder.reset()  # nor are this audio's those of the window that goes on
        return result

    def _new_window(self, audio: np.ndarray, voiced: np.ndarray) -> None:
        self.decoder.reset()
        release_window()  # the closed window's buffers: kept, windows of other sizes would pile them up
        pauses = PauseTracker(CLOSE_PAUSE_SECONDS, frame=1, onset=(1, 1))  # its frames are flags past an onset
        self.window = Window(self.committed, np.zeros(0, np.float32), [], [], np.zeros(0, bool), pauses)
        self._dirty = True
        self._add_audio(audio, voiced)

    def _add_audio(self, samples: np.ndarray, voiced: np.ndarray) -> tuple[bool, Optional[int]]:
        """Append to the window; (any loud frame?, where to cut if a pause after speech was found).

        A pause is CLOSE_PAUSE_SECONDS of quiet (carried over from earlier chunks too); the cut goes
        half of it in, so the closing run hears the speech end and the next window a lead-in.
        """
        window, end, cut = self.window, len(self.window.audio), None
        window.audio = np.concatenate([window.audio, samples])
        window.voiced = np.concatenate([window.voiced, voiced])
        loud, pauses = speech_frames(voiced), window.pauses
        for heard in loud:
            if cut is None and heard and pauses.paused:  # a pause carried over, or within these frames
                cut = end - pauses.quiet + pauses.pause // 2
            frame, end = end, min(end + FRAME, len(window.audio))
            pauses.push(bool(heard), end - frame)
        if cut is None and pauses.paused:
            cut = end - pauses.quiet + pauses.pause // 2
        return bool(loud.any()), cut

    def _step(self, chunk: np.ndarray, voiced: Optional[np.ndarray]) -> None:
        window = self.window
        if not window.speech:  # nothing said yet: keep only a short lead-in before this chunk
            keep = int(LEAD_IN_SECONDS * SAMPLE_RATE)
            window.audio, window.voiced = window.audio[-keep:], window.voiced[-keep:]
        loud, pause = self._add_audio(chunk, self.activity.push(chunk) if voiced is None else voiced)
        if pause is not None:
            self._close(pause)
            self._decode_if_speech()
        elif not loud:
            return  # nothing new to hear
        elif len(window.audio) + self.chunk > self.window_samples or self._prefix_over_cap():
            self._close(self._quietest_cut(window.audio))
            self._decode_if_speech()
        else:
            self._decode()

    def _prefix_over_cap(self) -> bool:
        return len(self._prefix()) > self.max_prefix_tokens

    def _decode_if_speech(self) -> None:
        """After a cut: decode the new window's audio if it holds speech."""
        if self.window.speech and len(self.window.audio) >= MIN_SECONDS * SAMPLE_RATE:
            self._decode()

    def _quietest_cut(self, audio: np.ndarray) -> int:
        """Sample index of the quietest 100 ms in the last SEARCH_SECONDS (offline's split rule)."""
        pieces = split_audio(audio, (len(audio) - 1) / SAMPLE_RATE, SEARCH_SECONDS)
        return pieces[1][0] if len(pieces) > 1 else len(audio)

    def _prefix(self) -> list[int]:
        window = self.window
        if window.decodes < UNFIXED_DECODES:
            return list(window.committed)
        return rollback(self.decoder.tokenizer, window.raw, self.rollback_tokens, len(window.committed))

    def _run(self) -> Decoding:
        """One decoder run on the window: its output replaces window.raw."""
        window, prefix = self.window, self._prefix()
        budget = max(0, token_budget(len(window.audio) / SAMPLE_RATE) - len(prefix))
        if self.options.max_new_tokens is not None:
            budget = min(budget, self.options.max_new_tokens)
        start = self.clock()
        result = self.decoder.decode(window.audio, prefix, window.raw[len(prefix) :], budget)
        self._compute += self.clock() - start
        self._steps += 1
        window.raw, window.committed = prefix + list(result.token_ids), prefix
        self._dirty = True
        window.decodes += 1
        return result

    def _decode(self) -> None:
        """A regular step: the forced prefix becomes committed; a loop closes the window."""
        result = self._run()
        if result.finish_reason == "repetition":
            self._commit(final=True)
            self._new_window(*NO_AUDIO)
        else:
            self._commit(final=False)

    def _close(self, cut: int) -> None:
        """Decode the window's audio up to `cut` a last time, commit all of it; the rest starts anew."""
        window = self.window
        rest, window.audio = window.audio[cut:], window.audio[:cut]
        rest_voiced, window.voiced = window.voiced[cut:], window.voiced[:cut]
        if window.speech and len(window.audio) >= MIN_SECONDS * SAMPLE_RATE:
            self._run()
        self._commit(final=True)
        self._new_window(rest, rest_voiced)

    def _commit(self, final: bool) -> None:
        window = self.window
        language, text = read_partial(self.decoder, window.committed, self.language)
        if final:
            language, text = final_text(self.decoder, window.raw, text, self.language)
        committed = joined(window.base, text)
        assert committed.startswith(self.committed), "committed text must only grow"
        self.committed = committed
        self.detected_language = language or self.detected_language

    def _update(self, before: str) -> Update:
        if self._dirty:  # re-read the window's text only after a decoder run or a new window
            window = self.window
            language, text = read_partial(self.decoder, window.raw, self.language)
            current = joined(window.base, text)
            assert current.startswith(self.committed), "the hypothesis must extend the committed text"
            self._tentative = current[len(self.committed) :]
            self._language = language or self.detected_language
            self._dirty = False
        return Update(
            committed=self.committed,
            new_committed=self.committed[len(before) :],
            tentative=self._tentative,
            language=self._language,
            audio_seconds=self.audio_samples / SAMPLE_RATE,
            compute_seconds=self._compute,
            steps=self._steps,
        )
