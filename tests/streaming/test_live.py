"""The live session with a fake clock and a fake engine: what is committed, when, which events say
so, and how often partials are asked for."""

import json
from typing import Optional

import numpy as np
import pytest

from mlx_qwen3asr.audio import resample
from mlx_qwen3asr.streaming import Event, LiveSession
from mlx_qwen3asr.streaming.events import FIELDS
from mlx_qwen3asr.testing.signals import RATE, burst, clicks, noise, silence
from mlx_qwen3asr.vad.energy import EnergyVad

# The sessions here are fed synthetic bursts, not speech: they test the session's policy with the
# level rule (the app's --vad energy); Silero VAD, the default, is tested on speech in tests/vad.
ENERGY = EnergyVad

BLOCK = 480  # 30 ms


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeEngine:
    """Names each utterance by its length; every call costs `cost` seconds of fake time."""

    def __init__(self, clock: FakeClock, cost: float = 0.0, text: str = "utterance") -> None:
        self.clock, self.cost, self.text = clock, cost, text
        self.language = ""
        self.partials: list[tuple[float, int]] = []  # (time asked, samples)
        self.flags: list[np.ndarray] = []  # the speech flags each partial was given
        self.finals: list[np.ndarray] = []

    def partial(self, audio: np.ndarray, voiced: Optional[np.ndarray] = None) -> str:
        assert voiced is not None and len(voiced) == len(audio), "a partial gets one speech flag per sample"
        self.partials.append((self.clock.now, len(audio)))
        self.flags.append(voiced)
        self.clock.now += self.cost
        return f"partial {len(audio)}"

    def final(self, audio: np.ndarray) -> str:
        self.finals.append(audio)
        self.clock.now += self.cost
        self.language = "English"
        return f"{self.text} {len(audio)}" if self.text else ""


def run(audio: np.ndarray, engine_cost: float = 0.0, text: str = "utterance", partials="streaming"):
    """Feed audio at real-time pace on the fake clock, a partial allowed after every block (the
    worker's way when it keeps up); (session, engine, commit events, all events)."""
    clock = FakeClock()
    engine = FakeEngine(clock, engine_cost, text)
    finals_only = {"refresh_every": None} if partials == "off" else {}
    live = LiveSession.on_engine(engine, vad=ENERGY(), clock=clock, **finals_only)
    events: list[Event] = []
    for i in range(0, len(audio), BLOCK):
        clock.now = max(clock.now, 100.0 + (i + BLOCK) / RATE)  # a block arrives when captured
        events += live.feed(audio[i : i + BLOCK], captured_at=100.0 + (i + BLOCK) / RATE)
    events += live.finish()
    return live, engine, [e for e in events if e.type == "commit"], events


def test_each_utterance_is_committed_once_with_the_engines_final_text():
    audio = np.concatenate([silence(1.0), burst(1.5), silence(1.0), burst(1.0, seed=2), silence(1.0)])
    live, engine, commits, _ = run(audio)
    assert [c.text for c in commits] == [f"utterance {len(a)}" for a in engine.finals], "commit = final"
    assert len(commits) == 2, f"two utterances, got {[c.text for c in commits]}"
    assert all(np.array_equal(c.audio, a) for c, a in zip(commits, engine.finals)), "audio kept"
    assert live.stats.utterances == 2 and live.stats.words == 4, "stats count commits and words"
    assert live.stats.language == "English", "the engine's language reaches the status line"


def test_commit_latency_runs_from_speech_end_to_the_commit():
    audio = np.concatenate([silence(1.0), burst(1.5), silence(1.5)])
    live, _, commits, _ = run(audio, engine_cost=0.2)
    latency = live.stats.latencies[0]
    # speech ends at 2.5 s; the pause is noticed 0.6 s later (within one 30 ms block); final costs 0.2 s
    assert 0.79 <= latency <= 0.84, f"latency {latency:.3f} s should be pause 0.6 + block + decode 0.2"


def test_partials_come_at_most_every_refresh_interval():
    audio = np.concatenate([silence(0.5), burst(4.0), silence(1.0)])
    _, engine, _, events = run(audio, engine_cost=0.01)
    times = [t for t, _ in engine.partials]
    gaps = np.diff(times)
    assert len(times) >= 6, f"4 s of speech should get several partials, got {len(times)}"
    assert gaps.min() >= 0.5, f"partials closer than 0.5 s: {gaps.min():.3f}"
    partials = [e for e in events if e.type == "partial"]
    assert [e.text for e in partials] == [f"partial {n}" for _, n in engine.partials], "each partial is an event"
    assert events[-1].type == "commit", "the commit comes after the last partial"


def test_slow_partials_are_spaced_by_twice_their_cost():
    audio = np.concatenate([silence(0.5), burst(6.0), silence(1.0)])
    _, engine, _, _ = run(audio, engine_cost=0.4)
    starts = [t for t, _ in engine.partials]
    gaps = np.diff(starts)
    assert gaps.min() >= 0.4 + 0.8 - 1e-9, f"a 0.4 s partial must be followed by 0.8 s idle: {gaps}"


def test_each_partial_gets_the_segmenters_speech_flags_so_voice_is_judged_once():
    audio = np.concatenate([silence(1.0), burst(2.0), silence(1.0)])
    live, engine, _, _ = run(audio)
    assert engine.flags, "partials were asked"
    flags = engine.flags[-1]
    quiet = int(0.5 * RATE)  # the pre-roll: 0.5 s of silence before the burst
    assert not flags[:quiet].any(), "the pre-roll's silence is not speech"
    assert flags[quiet:].mean() > 0.9, "the burst is speech, as the segmenter judged it"


def test_no_partials_when_switched_off():
    audio = np.concatenate([silence(0.5), burst(3.0), silence(1.0)])
    _, engine, commits, _ = run(audio, partials="off")
    assert engine.partials == [] and len(commits) == 1, "partials off: only the final is decoded"


def test_an_empty_final_commits_nothing():
    audio = np.concatenate([silence(0.5), burst(1.5), silence(1.0)])
    live, engine, commits, _ = run(audio, text="")
    assert len(engine.finals) == 1 and commits == [], "empty text must not make an empty line"
    assert live.stats.utterances == 0


def test_silence_never_reaches_the_engine():
    _, engine, commits, _ = run(silence(5.0))
    assert engine.finals == [] and engine.partials == [] and commits == [], "silence decodes nothing"


def test_flush_commits_the_open_utterance_without_a_latency_figure():
    audio = np.concatenate([silence(0.5), burst(1.5)])
    live, _, commits, events = run(audio)
    assert len(commits) == 1, "the utterance open at the end of the input is committed"
    assert live.stats.latencies == [], "a flushed utterance has no pause, so no latency"
    kinds = [e.type for e in events if e.type not in ("partial", "language")]
    assert kinds == ["speech", "silence", "commit"] and commits[0].reason == "flush", kinds


def test_the_silent_microphone_timer_follows_the_last_sound():
    audio = np.concatenate([burst(1.0), silence(6.0)])
    live, _, _, _ = run(audio)
    assert abs(live.last_sound_time - 101.0) < 0.05, f"last sound at {live.last_sound_time}"


def test_no_partial_is_started_once_the_speaker_pauses():
    audio = np.concatenate([silence(0.5), burst(3.0), silence(1.0)])
    _, engine, _, _ = run(audio, engine_cost=0.01)
    speech_end = 100.0 + 3.5
    late = [t for t, _ in engine.partials if t > speech_end + 0.2 + 0.03]
    assert late == [], f"partials during the pause delay the final: asked at {late}"


def test_events_say_when_speech_starts_and_stops_and_what_was_committed_with_session_times():
    audio = np.concatenate([silence(1.0), burst(1.5), silence(1.0), burst(1.0, seed=2), silence(1.0)])
    live, _, commits, events = run(audio)
    kinds = [e.type for e in events if e.type != "partial"]
    assert kinds == ["speech", "silence", "language", "commit", "speech", "silence", "commit"], kinds
    speech, quiet = [e for e in events if e.type == "speech"], [e for e in events if e.type == "silence"]
    assert [round(e.start, 2) for e in speech] == [0.5, 3.0], "utterances start 0.5 s (pre-roll) before speech"
    assert [c.start for c in commits] == [e.start for e in speech], "a commit spans its utterance"
    assert [round(e.start, 2) for e in quiet] == [2.5, 4.5], "silence starts where the speech ended"
    assert [round(c.end, 2) for c in commits] == [2.8, 4.8], "0.3 s of the pause stays in the utterance"
    assert all(c.reason == "pause" and c.language == "English" for c in commits)
    assert live.committed == "\n".join(c.text for c in commits), "committed: every utterance, one per line"


def test_every_event_turns_into_json_with_exactly_its_documented_fields():
    audio = np.concatenate([silence(1.0), burst(2.0), silence(1.0)])
    _, _, _, events = run(audio, engine_cost=0.01)
    live = LiveSession.on_engine(FakeEngine(FakeClock()), vad=ENERGY(), clock=FakeClock())
    events += live.gap(1.5)
    assert {e.type for e in events} == set(FIELDS), f"every kind of event is seen: {sorted({e.type for e in events})}"
    for event in events:
        as_json = json.loads(json.dumps(event.to_dict()))
        assert set(as_json) == {"type", "time", *FIELDS[event.type]}, f"{event.type}: {sorted(as_json)}"


def test_a_gap_ends_the_open_utterance_and_later_times_include_the_lost_audio():
    clock = FakeClock()
    live = LiveSession.on_engine(FakeEngine(clock), vad=ENERGY(), clock=clock)
    events = live.feed(np.concatenate([silence(0.5), burst(1.0)]))
    events += live.gap(2.0)
    events += live.feed(np.concatenate([silence(0.5), burst(1.0, seed=3), silence(1.0)]))
    commits = [e for e in events if e.type == "commit"]
    gap = next(e for e in events if e.type == "gap")
    assert len(commits) == 2 and commits[0].reason == "flush", "the utterance open at the gap is committed"
    assert (gap.start, gap.end) == (1.5, 3.5), f"the gap sits after 1.5 s of audio and lasts 2 s: {gap}"
    assert round(commits[1].start, 2) == 3.5, "1.5 s heard + 2 s lost: times after the gap count the lost audio"


@pytest.mark.parametrize(
    "audio",
    [
        np.concatenate([noise(6.0, -55.0), burst(0.1, level_db=-30.0), noise(6.0, -55.0, seed=2)]),
        clicks(4.0),
        np.random.default_rng(0).integers(-1, 2, 5 * RATE).astype(np.float32) / 32768,
    ],
    ids=["room-tone-with-one-louder-frame", "clicks", "one-bit-dither"],
)
def test_near_silence_never_reaches_the_decoder(audio):
    _, engine, commits, events = run(audio)
    assert engine.finals == [] and engine.partials == [], "the voice-activity rule finds no speech here"
    assert events == [], f"no speech, so no events: {events}"


def test_a_session_told_its_blocks_are_at_44_1_khz_hears_what_the_16_khz_resampled_input_gives():
    """A bare block carries no rate: without sample_rate=44100 it would be taken as 16 kHz (2.76x slower)."""
    audio16 = np.concatenate([silence(1.0), burst(1.5), silence(1.0), burst(1.0, seed=2), silence(1.0)])
    audio44 = resample(audio16, RATE, 44100)
    sessions = []
    for audio, rate, block in ((resample(audio44, 44100, RATE), RATE, 480), (audio44, 44100, 1323)):
        clock = FakeClock()
        engine = FakeEngine(clock)
        live = LiveSession.on_engine(engine, vad=ENERGY(), clock=clock, sample_rate=rate)
        events = [e for i in range(0, len(audio), block) for e in live.feed(audio[i : i + block])]
        sessions.append((engine, [e for e in events + live.finish() if e.type == "commit"]))
    (want_engine, want), (got_engine, got) = sessions
    assert [(c.text, c.start, c.end) for c in got] == [(c.text, c.start, c.end) for c in want], (
        "the same utterances, the same lengths (in their text) and times"
    )
    for got_audio, want_audio in zip(got_engine.finals, want_engine.finals):
        # the session resamples block by block (soxr's stream), the reference in one call: the same
        # filter, so they differ only by float32 rounding
        np.testing.assert_allclose(got_audio, want_audio, atol=1e-5)


@pytest.mark.parametrize("rate", [0, 44100.0, "44100"])
def test_a_sample_rate_that_is_not_a_whole_number_of_hz_is_refused_when_the_session_starts(rate):
    with pytest.raises(ValueError, match=rf"^sample_rate must be a positive integer number of Hz, got {rate!r}$"):
        LiveSession.on_engine(FakeEngine(FakeClock()), vad=ENERGY(), sample_rate=rate)
