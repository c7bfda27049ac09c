"""A commit is `transcribe(utterance)` whatever partials happened to come before it.

Finals verify the last partial as a draft in one batched pass (other matrix-product shapes than
decoding step by step), keep the encoder windows and keys/values the partials computed, and may be
prepared during the pause. Which partials exist depends on the clock and on how busy the caller is.
Here a fake clock drives the same recording at several refresh rates, with partials off, and with a
caller that is behind (partial=False for most blocks), on random weights (near-ties are common) with
a 24-token budget and no language: every variant commits the same utterances, each exactly
transcribe's text for its audio, and the reusing path did run (drafts accepted, windows kept)."""

from pathlib import Path

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.streaming.utterances import StreamingEngine
from mlx_qwen3asr.testing.signals import noise, silence

AUDIO = Path(__file__).resolve().parents[1] / "fixtures" / "audio"
RATE, BLOCK, TOKENS = 16000, 1600, 24


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


class RecordingEngine(StreamingEngine):
    """The streaming engine, keeping every reusing final's Decoding."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.finals = []

    def _final(self, audio: np.ndarray) -> str:
        self.last_final = None
        text = super()._final(audio)
        if self.last_final is not None:
            self.finals.append(self.last_final)
        return text


@pytest.fixture(scope="module")
def recording() -> np.ndarray:
    """Five utterances between pauses over room tone: the first 1.2 s (its final verifies a partial's
    tokens: a window's first two runs force no prefix), the fourth 11 s (a whole 8 s encoder window)."""
    clips = [mq.load_audio(AUDIO / f"{name}.wav") for name in ("short", "short", "exact", "long", "exact")]
    clips[0], clips[3] = clips[0][int(0.3 * RATE) : int(1.5 * RATE)], clips[3][: 11 * RATE]
    parts = [part for clip in clips for part in (silence(1.2), clip)] + [silence(1.5)]
    audio = np.concatenate(parts)
    return audio + noise(len(audio) / RATE, -55.0)


def session(model, audio: np.ndarray, refresh, busy: bool = False):
    """Commits of a LiveSession fed BLOCK samples at a time at real-time pace on a fake clock."""
    clock = Clock()
    options = mq.DecodeOptions(max_new_tokens=TOKENS)
    engine = RecordingEngine(model, options)
    live = mq.LiveSession.on_engine(engine, clock=clock, refresh_every=refresh)
    events = []
    for i, start in enumerate(range(0, len(audio), BLOCK)):
        clock.now = (start + BLOCK) / RATE
        events += live.feed(audio[start : start + BLOCK], partial=not busy or i % 4 == 3)
    events += live.finish()
    return [e for e in events if e.type == "commit"], engine


@pytest.fixture(scope="module")
def expected(tiny_model, recording):
    commits, _ = session(tiny_model, recording, None)
    assert len(commits) == 5, [(c.start, c.end) for c in commits]
    return [(c.text, c.start, c.end) for c in commits]


def test_without_partials_each_commit_is_transcribes_text_for_its_audio(tiny_model, recording):
    for commit in session(tiny_model, recording, None)[0]:
        want = mq.transcribe(commit.audio, tiny_model, max_new_tokens=TOKENS).text
        assert commit.text == want, f"{commit.start}-{commit.end} s: {commit.text!r} != transcribe's {want!r}"


@pytest.mark.parametrize("refresh, busy", [(0.1, False), (0.3, False), (1.0, False), (0.3, True)])
def test_the_commits_do_not_depend_on_which_partials_came_before(tiny_model, recording, expected, refresh, busy):
    commits, engine = session(tiny_model, recording, refresh, busy)
    assert [(c.text, c.start, c.end) for c in commits] == expected, f"refresh {refresh}, busy {busy}"
    assert engine.finals, "the finals went through the reusing path"
    if not busy:
        assert any(f.draft_accepted for f in engine.finals), "a partial's tokens were verified as a draft"
