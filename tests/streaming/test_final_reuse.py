"""Finals that reuse the partials' work commit exactly `transcribe(utterance)`: the last partial's tokens
verified as a draft in one pass (accepted where they agree, the model's own tokens where they do not),
the encoder windows the partials encoded kept, and a final prepared in the pause reused as is.

Exact tokens, not bits: a verification pass computes the logits step-by-step decoding would, up to
the products' float blocking (~1e-6 relative), and these models' top two logits are far further
apart than that."""

from pathlib import Path

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.qwen3_asr.prompt import build_prompt
from mlx_qwen3asr.streaming.utterances import StreamingEngine
from mlx_qwen3asr.testing.signals import noise, silence

AUDIO = Path(__file__).resolve().parents[1] / "fixtures" / "audio"
RATE = 16000
TOKENS = 6  # a fixed budget: random weights never stop on their own


@pytest.fixture(scope="module")
def clips() -> dict[str, np.ndarray]:
    return {name: mq.load_audio(AUDIO / f"{name}.wav") for name in ("short", "exact", "long")}


def offline(model, audio: np.ndarray) -> str:
    return mq.transcribe(audio, model, max_new_tokens=TOKENS).text


def engine_for(model) -> StreamingEngine:
    return StreamingEngine(model, mq.DecodeOptions(max_new_tokens=TOKENS))


def partials(engine: StreamingEngine, audio: np.ndarray, every: int = RATE // 2) -> str:
    """Partials as a live session asks for them, every half second of the audio; the last one's text."""
    text = ""
    for end in range(every, len(audio) + 1, every):
        text = engine.partial(audio[:end])
    return text


@pytest.mark.parametrize("name", ["short", "exact", "long"])
def test_a_final_after_partials_is_the_offline_transcription(listening_model, clips, name):
    audio = clips[name]
    engine = engine_for(listening_model)
    last_partial = partials(engine, audio[: len(audio) - RATE // 3])
    final = engine.final(audio)
    assert final == offline(listening_model, audio), f"{name}: the final must be transcribe's text"
    assert engine.last_final is not None, "the final went through the reusing path"
    if name == "long":
        assert last_partial != final, "the partial differed: its draft was (partly) rejected, the text is right"


def test_a_partial_on_the_same_audio_is_accepted_whole(listening_model, clips):
    audio = clips["short"][: 2 * RATE]  # whole 1 s chunks: the last partial heard all of it
    engine = engine_for(listening_model)
    engine.partial(audio[:RATE])
    assert engine.final(audio[:RATE]) == offline(listening_model, audio[:RATE])
    result = engine.last_final
    assert result.draft_accepted == len(result.token_ids) == TOKENS, "every token came from the one pass"


def test_encoder_windows_the_partials_encoded_are_reused(listening_model, clips):
    audio = clips["long"]  # 15.7 s: the first 8 s encoder window is complete after 8 s
    engine = engine_for(listening_model)
    partials(engine, audio[: 12 * RATE], every=RATE)
    final = engine.final(audio)
    assert final == offline(listening_model, audio), "the final is transcribe's text"
    prompt = len(build_prompt(listening_model.tokenizer, 204))  # 204 audio tokens in 15.7 s
    assert engine.last_final.prefilled <= prompt - 104, "the first window (104 tokens) was not run again"


def test_a_final_prepared_in_the_pause_is_committed_as_is(listening_model, clips):
    audio = np.concatenate([silence(0.5), clips["short"], silence(1.2), clips["exact"], silence(1.2)])
    audio = audio + noise(len(audio) / RATE, -55.0)

    class Clock:
        now = 0.0

        def __call__(self):
            return self.now

    clock = Clock()
    live = mq.LiveSession(listening_model, mq.DecodeOptions(max_new_tokens=TOKENS), clock=clock)
    events = []
    for start in range(0, len(audio), 480):  # 30 ms blocks at real-time pace on the fake clock
        clock.now = (start + 480) / RATE
        events += live.feed(audio[start : start + 480])
    events += live.finish()
    commits = [e for e in events if e.type == "commit"]
    assert len(commits) == 2, [e.text for e in commits]
    for commit in commits:
        assert commit.text == offline(listening_model, commit.audio), "a commit is transcribe's text"
        before = [e for e in events[: events.index(commit)] if e.type == "partial"]
        assert before[-1].text == commit.text, "the pause's partial was the prepared final, shown early"


class CountingEngine(StreamingEngine):
    prepared = 0

    def prepare(self, audio: np.ndarray):
        self.prepared += 1
        return super().prepare(audio)


def audible(clip: np.ndarray) -> np.ndarray:
    """The clip without its leading and trailing quiet (espeak-ng pads its speech)."""
    loud = np.flatnonzero(np.abs(clip) > 10 ** (-50 / 20))
    return clip[loud[0] : loud[-1] + 1]


def test_speech_that_resumes_after_a_prepared_final_commits_the_longer_utterance(listening_model, clips):
    gap = silence(0.45)  # past the 0.3 s tail (a final is prepared), short of the 0.6 s pause
    audio = np.concatenate([silence(0.5), audible(clips["short"]), gap, audible(clips["exact"]), silence(1.2)])
    engine = CountingEngine(listening_model, mq.DecodeOptions(max_new_tokens=TOKENS))
    live = mq.LiveSession.on_engine(engine)
    events = []
    for start in range(0, len(audio), 480):
        events += live.feed(audio[start : start + 480])
    commits = [e for e in events + live.finish() if e.type == "commit"]
    assert len(commits) == 1, "a 0.45 s pause does not end the utterance"
    assert engine.prepared >= 2, "a final was prepared in the short pause, and one in the last"
    assert commits[0].text == offline(listening_model, commits[0].audio), "the first prepared text was dropped"


@pytest.mark.parametrize("partials", ["streaming", "offline"])
def test_a_session_checks_its_options_once_however_many_partials_and_finals(
    listening_model, clips, option_checks, partials
):
    audio = np.concatenate([silence(0.5), clips["short"], silence(1.2), clips["exact"], silence(1.2)])
    live = mq.LiveSession(listening_model, mq.DecodeOptions(max_new_tokens=TOKENS), partials=partials)
    events = [e for start in range(0, len(audio), 4800) for e in live.feed(audio[start : start + 4800])]
    events += live.finish()
    assert sum(e.type == "commit" for e in events) == 2 and any(e.type == "partial" for e in events)
    assert len(option_checks) == 1, f"{len(option_checks)} checks: the session's door, then none per partial or final"
