"""A live session: audio blocks in, Events out (speech, partial, commit, silence, language, gap).

    import mlx_qwen3asr as mq
    live = mq.LiveSession(model, mq.DecodeOptions(language=None), sample_rate=48000)  # the blocks' rate
    for block in microphone():                  # any layout (see SampleStream), any length
        for event in live.feed(block):
            print(event.to_dict())
    for event in live.finish(): ...             # everything heard is committed

Data flow (one thread):
    block -> SampleStream (16 kHz mono) -> Segmenter (vad.py's energy rule, or Silero VAD with vad=; 0.5 s pre-roll,
      0.6 s pause ends an utterance, 20 s without one cuts it at its quietest 100 ms)
      -> finished utterance -> engine.final = transcribe(utterance) -> "commit" event
      -> open utterance, when due -> engine.partial (its audio and the VAD's flags) -> "partial" event
         (two-pass, partials_model=: the first model's text of its last seconds, two_pass.py)
      -> open utterance in a pause, its tail heard -> engine.prepare(closing audio) -> "partial" event

Commits: append-only (`committed` only grows); an utterance that ends with a pause commits exactly
`transcribe(utterance audio).text`; speech without pauses commits every `max_utterance` seconds at
most; silence and steady noise never open an utterance, so they never reach the decoder.
Partials are bounded: at most one per `refresh_every` seconds, never sooner than twice the last
partial's own cost after it (so they take at most a third of the time), none once the speaker has
been quiet for 0.2 s (a final is probably coming: a partial then would only delay it). Instead,
once the pause has lasted the utterance's 0.3 s tail, the audio a commit would hold is known, and
the engine prepares its final then (shown as the partial): when the pause reaches `pause` and
closes the utterance with that audio, the commit costs nothing more; if speech resumes, the
prepared text is dropped (the final stays transcribe's of the audio actually committed). A caller
that is behind (more audio waiting) passes `partial=False`, so partials never delay a commit.
Decisions depend on sample counts only, never on a clock or on how the audio was blocked.
"""

import time
from collections import deque
from collections.abc import Callable
from typing import Optional, TypedDict

import numpy as np

from ..audio.samples import SAMPLE_RATE as RATE
from ..audio.samples import SampleStream
from ..decode.prefix_cache import PrefixCache
from ..families.recogniser import Recogniser
from ..options import DecodeOptions
from ..runtime.typing import Unpack
from ..vad import load_vad
from ..vad.detector import VoiceDetector
from ..vad.energy import DEAD_PEAK, FRAME
from .events import Event
from .live_stats import LiveStats
from .segmenter import MAX_UTTERANCE_SECONDS, PAUSE_SECONDS, Segmenter, Utterance
from .two_pass import two_pass_engine
from .utterances import UtteranceEngine, check_partials, make_engine

MIN_PARTIAL_SECONDS = 0.3
PARTIAL_QUIET_LIMIT = 0.2  # the speaker may be pausing: keep the engine free for the final
REFRESH_SECONDS = 0.5


class LiveSettings(TypedDict, total=False):
    """A live session's settings. pause: seconds without speech that end an utterance (0.6);
    max_utterance: the longest utterance, cut at its quietest point (20 s); refresh_every: seconds
    between partials (0.5; None: finals only). sample_rate: the rate of the blocks fed (resampled to
    16 kHz without seams). A block carries no rate, so the session cannot know it: give it here, or
    other rates are heard as 16 kHz; `feed(block, rate=...)` overrides it for one block (a device
    reopened at another rate). channels_last: 2-D blocks are [frames, channels] (a sound card's),
    whatever their shape; else the layout rule of audio/samples.py decides. vad: which frames are
    speech: Silero VAD (None makes one, mq.load_vad(): the app's and the server's default too, so the
    same audio gives the same commits everywhere), or mq.EnergyVad() for vad/energy.py's level rule
    (`--vad energy`). stats: where the numbers go (LiveStats); clock: a test seam (a fake clock)."""

    pause: float
    max_utterance: float
    refresh_every: Optional[float]
    sample_rate: int
    channels_last: bool
    vad: Optional[VoiceDetector]
    stats: Optional[LiveStats]
    clock: Callable[[], float]


class LiveSession:
    """One live transcription session. Not thread-safe: feed it from one thread."""

    def __init__(
        self,
        model: Recogniser,
        options: DecodeOptions = DecodeOptions(),
        *,
        partials: str = "streaming",
        partials_model: Optional[Recogniser] = None,
        prefix_cache: Optional[PrefixCache] = None,
        **settings: Unpack[LiveSettings],
    ) -> None:
        """The checking constructor: `options` checked against `model` (once), its utterance engine made.
        partials: "streaming" (library streaming engine), "offline" (re-decode) or "off" (utterances.PARTIALS).
        partials_model: a second, fast model (SenseVoiceSmall) that makes the partials on the open utterance's
        last seconds, `model` only the finals (two_pass.py; not with partials="off"; "streaming" and "offline"
        then mean the same: one transcribe of the window per partial); it gets the options it can take
        (first_pass_options). The commits are the same with and without it.
        prefix_cache: the prompt head's keys and values for every partial and final: computed once
        for the session (None), from a shared PrefixCache (a server's), or never (PrefixCache.off(model)).
        settings: LiveSettings (pause, max_utterance, refresh_every, sample_rate, channels_last, vad, ...)."""
        check_partials(partials)
        options.check(model)
        if partials_model is not None:
            if partials == "off":
                raise ValueError("partials='off' shows no partials: drop partials_model, or leave partials as it is")
            self._start(two_pass_engine(model, partials_model, options, prefix_cache), **settings)
            return
        if partials == "off":
            settings = {**settings, "refresh_every": None}
        self._start(make_engine(model, partials, options, prefix_cache), **settings)

    @classmethod
    def on_engine(cls, engine: UtteranceEngine, **settings: Unpack[LiveSettings]) -> "LiveSession":
        """A session on an utterance engine its caller made, having checked its options against the model
        (make_engine: the server, whose handshake checks them; a fake in tests). Partials: as the engine
        gives them, every `refresh_every` seconds (None: finals only)."""
        session = cls.__new__(cls)
        session._start(engine, **settings)
        return session

    def _start(
        self,
        engine: UtteranceEngine,
        *,
        pause: float = PAUSE_SECONDS,
        max_utterance: float = MAX_UTTERANCE_SECONDS,
        refresh_every: Optional[float] = REFRESH_SECONDS,
        sample_rate: int = RATE,
        channels_last: bool = False,
        vad: Optional[VoiceDetector] = None,
        stats: Optional[LiveStats] = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine, self.clock = engine, clock
        self.segmenter = Segmenter(pause, max_utterance, voice=(vad or load_vad()).frame_judge(FRAME))
        self.refresh_every = refresh_every
        self.stats = stats or LiveStats()
        self.samples = SampleStream(sample_rate, channels_last=channels_last)
        self.committed = ""  # every committed utterance, one per line; only ever grows
        self.last_sound_time = clock()  # capture time of the last block with any signal in it
        self._times: deque[tuple[int, float]] = deque()  # (end sample of a block, its capture time)
        self._received = 0
        self._lost = 0.0  # seconds of input reported lost: event times stay those of the session
        self._next_partial = 0.0
        self._partial_for = -1  # audio length the shown partial was made from
        self._prepared_for = -1  # audio length a final was prepared for in the current pause
        self.stats.language = engine.language
        self._language = ""  # the language last reported by an event (a forced one is reported too)
        self._was_open = False

    def warm_up(self) -> None:
        """One short decode, so the first utterance does not pay for first-call set-up."""
        self.engine.warm_up()

    def feed(
        self, block: np.ndarray, captured_at: Optional[float] = None, rate: Optional[int] = None, partial: bool = True
    ) -> list[Event]:
        """Add a block (captured_at: the clock's time at its last sample, default now); the events."""
        return self._push(self.samples.convert(block, rate), captured_at, partial)

    def refresh(self) -> list[Event]:
        """A partial for the open utterance if one is due and there is new audio (else nothing);
        in a pause, once the audio the utterance would commit is known, its final text ahead."""
        seg = self.segmenter
        if self.refresh_every is None or not seg.is_open:
            return []
        if seg.quiet_seconds > PARTIAL_QUIET_LIMIT:
            return self._prepare()
        audio = seg.open_audio()
        if (
            self.clock() < self._next_partial
            or len(audio) < MIN_PARTIAL_SECONDS * RATE
            or len(audio) == self._partial_for
        ):
            return []
        started = self.clock()
        text = self.engine.partial(audio, seg.open_voiced())  # voice judged once: by the segmenter's VAD
        cost = self.clock() - started
        self.stats.compute_seconds += cost
        self._next_partial = self.clock() + max(self.refresh_every, 2 * cost)
        self._partial_for = len(audio)
        return [] if text is None else self._partial_event(text)

    def _prepare(self) -> list[Event]:
        """The speaker paused: the final of the audio a commit would hold, while the pause goes on
        (the engine keeps it; if speech resumes it is dropped). Once per pause."""
        prepare = getattr(self.engine, "prepare", None)
        audio = self.segmenter.closing_audio() if prepare is not None else None
        if audio is None or len(audio) == self._prepared_for:
            return []
        self._prepared_for = len(audio)
        started = self.clock()
        text = prepare(audio)
        self.stats.compute_seconds += self.clock() - started
        return [] if text is None else self._partial_event(text.strip())

    def _partial_event(self, text: str) -> list[Event]:
        seg, events = self.segmenter, self._language_events()
        return events + [
            Event("partial", self._now(), start=self._seconds(seg.open_start), text=text, language=self.engine.language)
        ]

    def flush(self) -> list[Event]:
        """End the open utterance now (the input was interrupted, or ended) and commit it."""
        events = self._push(self.samples.flush(), None, partial=False)
        utterance = self.segmenter.flush()
        if utterance is None:
            return events + self._transitions()
        return events + self._transitions(utterance) + self._commit(utterance)

    finish = flush  # the end of the input: everything heard is committed; feeding may go on

    def gap(self, seconds: float) -> list[Event]:
        """`seconds` of input were lost here: end the open utterance and report the gap."""
        events = self.flush()
        at = self._seconds(self._received)  # all audio before the hole (a VAD may not have judged its last window)
        self._lost += seconds
        return events + [Event("gap", at, start=at, end=at + seconds)]

    def _push(self, samples: np.ndarray, captured_at: Optional[float], partial: bool) -> list[Event]:
        captured_at = self.clock() if captured_at is None else captured_at
        self._received += len(samples)
        self._times.append((self._received, captured_at))
        while len(self._times) > 1 and self._times[1][0] < self._received - 60 * RATE:
            self._times.popleft()
        if len(samples) and float(np.max(np.abs(samples))) >= DEAD_PEAK:
            self.last_sound_time = captured_at
        self.stats.audio_seconds = self._received / RATE
        events: list[Event] = []
        for utterance in self.segmenter.push(samples):
            events += self._transitions(utterance) + self._commit(utterance)
        events += self._transitions()
        return events + (self.refresh() if partial else [])

    def _transitions(self, closed: Optional[Utterance] = None) -> list[Event]:
        """ "speech" when an utterance opened, "silence" when one closed (or was dropped as noise)."""
        seg, events = self.segmenter, []
        if closed is not None and not self._was_open:  # opened and closed within one block
            events.append(Event("speech", self._now(), start=self._seconds(closed.start)))
            self._was_open = True
        if self._was_open and (closed is not None or not seg.is_open):
            end = closed.speech_end if closed is not None else seg.analysed
            events.append(Event("silence", self._now(), start=self._seconds(end)))
            self._was_open = closed is not None and closed.reason == "cut"
        if not self._was_open and seg.is_open:
            events.append(Event("speech", self._now(), start=self._seconds(seg.open_start)))
            self._was_open = True
        seg_stats = self.stats
        seg_stats.level_db = seg.level_db
        seg_stats.floor_db = seg.floor_db if seg.floor_db is not None else -120.0
        seg_stats.speaking = seg.is_open
        return events

    def _commit(self, utterance: Utterance) -> list[Event]:
        started = self.clock()
        text = self.engine.final(utterance.audio).strip()
        self.stats.compute_seconds += self.clock() - started
        self._partial_for = self._prepared_for = -1
        events = self._language_events()
        if not text:
            return events
        latency = self.clock() - self._time_of(utterance.speech_end) if utterance.reason == "pause" else None
        self.committed += ("\n" if self.committed else "") + text
        self.stats.add_commit(text, latency)
        return events + [
            Event(
                "commit",
                self._now(),
                start=self._seconds(utterance.start),
                end=self._seconds(utterance.end),
                text=text,
                language=self.engine.language,
                reason=utterance.reason,
                latency=latency,
                audio=utterance.audio,
            )
        ]

    def _language_events(self) -> list[Event]:
        language = self.engine.language
        if not language or language == self._language:
            return []
        self._language = self.stats.language = language
        return [Event("language", self._now(), language=language)]

    def _seconds(self, sample: int) -> float:
        return sample / RATE + self._lost

    def _now(self) -> float:
        return self._seconds(self.segmenter.analysed)

    def _time_of(self, sample: int) -> float:
        """Clock time at which `sample` was captured."""
        for end, captured_at in self._times:
            if end >= sample:
                return captured_at - (end - sample) / RATE
        return self._times[-1][1]
