"""Two-pass live: partials from a first model (SenseVoiceSmall), finals from the final one (Qwen3-ASR).

The same recording (three utterances over room tone, Silero VAD's decisions) is fed at real-time pace on a fake
clock to a session without a first model and to one with it: the commits are the same, each exactly
transcribe's text on the final model; the partials are the first model's. A first model that raises costs
the partials only. A long open utterance is read through a bounded window."""

from pathlib import Path

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.streaming.two_pass import TwoPassEngine, first_pass_options, two_pass_engine
from mlx_qwen3asr.streaming.utterances import OfflineEngine
from mlx_qwen3asr.testing.signals import noise, silence

AUDIO = Path(__file__).resolve().parents[1] / "fixtures" / "audio"
RATE, BLOCK, TOKENS = 16000, 1600, 24
OPTIONS = mq.DecodeOptions(max_new_tokens=TOKENS)


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


class FirstModel:
    """The first model as the session gets it, keeping the text of each recognition; from its nth call on
    (n=None: never) it raises, as a model that breaks mid-session."""

    def __init__(self, model, n=None) -> None:
        self.model, self.n, self.texts = model, n, []

    def __getattr__(self, name):
        return getattr(self.model, name)

    def transcribe_chunks(self, waves, options):
        if self.n is not None and len(self.texts) + 1 >= self.n:
            raise RuntimeError("out of memory\nsecond line")
        segments = self.model.transcribe_chunks(waves, options)
        self.texts.append(" ".join(s.text for s in segments))
        return segments


@pytest.fixture(scope="module")
def recording() -> np.ndarray:
    speech = mq.load_audio(AUDIO / "short.wav")
    clips = [speech[int(start * RATE) : int((start + 1.6) * RATE)] for start in (0.2, 0.6, 0.4)]
    audio = np.concatenate([part for clip in clips for part in (silence(1.2), clip)] + [silence(1.5)])
    return audio + noise(len(audio) / RATE, -55.0)


def run(live: mq.LiveSession, clock: Clock, audio: np.ndarray) -> list[mq.Event]:
    events = []
    for start in range(0, len(audio), BLOCK):
        clock.now = (start + BLOCK) / RATE
        events += live.feed(audio[start : start + BLOCK])
    return events + live.finish()


def commits(events: list[mq.Event]) -> list[tuple]:
    return [(e.text, e.start, e.end, e.reason) for e in events if e.type == "commit"]


@pytest.fixture(scope="module")
def single(tiny_model, recording) -> list[mq.Event]:
    clock = Clock()
    return run(mq.LiveSession(tiny_model, OPTIONS, clock=clock, refresh_every=0.3), clock, recording)


@pytest.fixture(scope="module")
def two_pass(tiny_model, sensevoice, recording) -> tuple[list[mq.Event], FirstModel]:
    clock, first = Clock(), FirstModel(sensevoice)
    live = mq.LiveSession(tiny_model, OPTIONS, partials_model=first, clock=clock, refresh_every=0.3)
    return run(live, clock, recording), first


def test_commits_are_the_same_with_and_without_a_first_model(tiny_model, single, two_pass):
    assert len(commits(single)) == 3, commits(single)
    assert commits(two_pass[0]) == commits(single), "a first model changed a commit's text or times"
    for commit in (e for e in two_pass[0] if e.type == "commit"):
        want = mq.transcribe(commit.audio, tiny_model, max_new_tokens=TOKENS).text
        assert commit.text == want, "a two-pass commit is transcribe's text on the final model"


def test_partials_come_from_the_first_model(two_pass):
    events, first = two_pass
    shown = [e.text for e in events if e.type == "partial" and e.text in first.texts]
    assert len(first.texts) >= 5 and any(first.texts), f"the first model read the open utterances: {first.texts}"
    assert len(shown) >= 5, f"its texts are the partials shown, got {len(shown)}"


def test_a_failing_first_model_costs_the_partials_only(tiny_model, sensevoice, single, recording):
    clock = Clock()
    failing = FirstModel(sensevoice, n=4)
    live = mq.LiveSession(tiny_model, OPTIONS, partials_model=failing, clock=clock, refresh_every=0.3)
    with pytest.warns(UserWarning) as caught:
        events = run(live, clock, recording)
    assert len(caught) == 1, [str(w.message) for w in caught]
    message = str(caught[0].message)
    assert "out of memory" in message and "\n" not in message, f"one line naming the cause: {message!r}"
    assert len(failing.texts) == 3, "no partials are asked of the first model once it failed"
    assert commits(events) == commits(single), "the commits go on as without a first model"


def test_a_refresh_reads_at_most_the_window_and_shows_the_whole_utterance(sensevoice, recording):
    first = OfflineEngine(sensevoice, mq.DecodeOptions())
    engine = TwoPassEngine(OfflineEngine(sensevoice, mq.DecodeOptions()), first, window_seconds=2.0)
    audio = recording[: 7 * RATE]
    texts = [engine.partial(audio[:end]) for end in range(RATE, len(audio) + 1, RATE // 2)]
    assert engine.longest_read <= 2 * RATE, f"a read is at most the window: {engine.longest_read / RATE} s"
    frozen = engine._frozen_at
    assert frozen >= 4 * RATE, f"the utterance's start was frozen as it grew: {frozen / RATE} s"
    assert texts[-1].endswith(mq.transcribe(audio[frozen:], sensevoice).text), "the window's text ends the partial"
    engine.final(audio)
    assert engine.partial(audio[:RATE]) == mq.transcribe(audio[:RATE], sensevoice).text, "a final starts afresh"


def test_the_first_model_gets_the_options_it_can_take(sensevoice):
    asked = mq.DecodeOptions("German", context="Names: Qwen", max_new_tokens=10, hotwords=("MLX",))
    assert first_pass_options(asked, sensevoice) == mq.DecodeOptions(max_new_tokens=10), "context dropped, detect"
    english = first_pass_options(mq.DecodeOptions("en", context="Qwen"), sensevoice)
    assert english.language == "English" and english.context == "", "a language it takes is forced on it too"


def test_contradictions_are_refused_in_one_line(tiny_model, sensevoice):
    with pytest.raises(ValueError, match="partials='off'") as off:
        mq.LiveSession(tiny_model, partials="off", partials_model=sensevoice)
    with pytest.raises(ValueError, match="final model itself") as same:
        two_pass_engine(tiny_model, tiny_model)
    assert "\n" not in str(off.value) + str(same.value)
