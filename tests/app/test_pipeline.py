"""The commit policy with a fake clock and a fake engine: what is committed, when, and how often
partials are asked for."""

import numpy as np

from app.pipeline import Pipeline
from dictation_helpers import RATE, burst, silence

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
        self.finals: list[np.ndarray] = []

    def partial(self, audio: np.ndarray) -> str:
        self.partials.append((self.clock.now, len(audio)))
        self.clock.now += self.cost
        return f"partial {len(audio)}"

    def final(self, audio: np.ndarray) -> str:
        self.finals.append(audio)
        self.clock.now += self.cost
        self.language = "English"
        return f"{self.text} {len(audio)}" if self.text else ""


def run(audio: np.ndarray, engine_cost: float = 0.0, text: str = "utterance", refresh_every=0.5):
    """Feed audio at real-time pace on the fake clock; refresh after every block, as the worker does."""
    clock = FakeClock()
    engine = FakeEngine(clock, engine_cost, text)
    commits, tentatives = [], []
    pipeline = Pipeline(engine, commits.append, tentatives.append, clock=clock, refresh_every=refresh_every)
    for i in range(0, len(audio), BLOCK):
        clock.now = max(clock.now, 100.0 + (i + BLOCK) / RATE)  # a block arrives when captured
        pipeline.push(audio[i : i + BLOCK], captured_at=100.0 + (i + BLOCK) / RATE)
        pipeline.refresh()
    pipeline.flush()
    return pipeline, engine, commits, tentatives


def test_each_utterance_is_committed_once_with_the_engines_final_text():
    audio = np.concatenate([silence(1.0), burst(1.5), silence(1.0), burst(1.0, seed=2), silence(1.0)])
    pipeline, engine, commits, _ = run(audio)
    assert [c.text for c in commits] == [f"utterance {len(a)}" for a in engine.finals], "commit = final"
    assert len(commits) == 2, f"two utterances, got {[c.text for c in commits]}"
    assert all(np.array_equal(c.audio, a) for c, a in zip(commits, engine.finals)), "audio kept"
    assert pipeline.stats.utterances == 2 and pipeline.stats.words == 4, "stats count commits and words"
    assert pipeline.stats.language == "English", "the engine's language reaches the status line"


def test_commit_latency_runs_from_speech_end_to_the_commit():
    audio = np.concatenate([silence(1.0), burst(1.5), silence(1.5)])
    pipeline, _, commits, _ = run(audio, engine_cost=0.2)
    latency = pipeline.stats.latencies[0]
    # speech ends at 2.5 s; the pause is noticed 0.6 s later (within one 30 ms block); final costs 0.2 s
    assert 0.79 <= latency <= 0.84, f"latency {latency:.3f} s should be pause 0.6 + block + decode 0.2"


def test_partials_come_at_most_every_refresh_interval():
    audio = np.concatenate([silence(0.5), burst(4.0), silence(1.0)])
    _, engine, _, tentatives = run(audio, engine_cost=0.01)
    times = [t for t, _ in engine.partials]
    gaps = np.diff(times)
    assert len(times) >= 6, f"4 s of speech should get several partials, got {len(times)}"
    assert gaps.min() >= 0.5, f"partials closer than 0.5 s: {gaps.min():.3f}"
    assert tentatives[-1] == "", "the tentative text is cleared when the utterance commits"


def test_slow_partials_are_spaced_by_twice_their_cost():
    audio = np.concatenate([silence(0.5), burst(6.0), silence(1.0)])
    _, engine, _, _ = run(audio, engine_cost=0.4)
    starts = [t for t, _ in engine.partials]
    gaps = np.diff(starts)
    assert gaps.min() >= 0.4 + 0.8 - 1e-9, f"a 0.4 s partial must be followed by 0.8 s idle: {gaps}"


def test_no_partials_when_switched_off():
    audio = np.concatenate([silence(0.5), burst(3.0), silence(1.0)])
    _, engine, commits, _ = run(audio, refresh_every=None)
    assert engine.partials == [] and len(commits) == 1, "partials off: only the final is decoded"


def test_an_empty_final_commits_nothing():
    audio = np.concatenate([silence(0.5), burst(1.5), silence(1.0)])
    pipeline, engine, commits, _ = run(audio, text="")
    assert len(engine.finals) == 1 and commits == [], "empty text must not make an empty line"
    assert pipeline.stats.utterances == 0


def test_silence_never_reaches_the_engine():
    _, engine, commits, _ = run(silence(5.0))
    assert engine.finals == [] and engine.partials == [] and commits == [], "silence decodes nothing"


def test_flush_commits_the_open_utterance_without_a_latency_figure():
    audio = np.concatenate([silence(0.5), burst(1.5)])
    pipeline, _, commits, _ = run(audio)
    assert len(commits) == 1, "the utterance open at the end of the input is committed"
    assert pipeline.stats.latencies == [], "a flushed utterance has no pause, so no latency"


def test_the_silent_microphone_timer_follows_the_last_sound():
    audio = np.concatenate([burst(1.0), silence(6.0)])
    pipeline, _, _, _ = run(audio)
    assert abs(pipeline.last_sound_time - 101.0) < 0.05, f"last sound at {pipeline.last_sound_time}"


def test_no_partial_is_started_once_the_speaker_pauses():
    audio = np.concatenate([silence(0.5), burst(3.0), silence(1.0)])
    _, engine, _, _ = run(audio, engine_cost=0.01)
    speech_end = 100.0 + 3.5
    late = [t for t, _ in engine.partials if t > speech_end + 0.2 + 0.03]
    assert late == [], f"partials during the pause delay the final: asked at {late}"
