"""Silero VAD as the live end-pointer (LiveSession(vad=...)), with a free fake engine and a fake clock
(scripts/bench/vad_live.py's replay, which prints these numbers): what is committed on speech, noise
and clicks, and when."""

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.signals import noise, silence
from scripts.bench.vad_live import replay
from tests.vad_goldens import wave_of


@pytest.fixture(scope="module")
def vad() -> mq.SileroVad:
    return mq.load_vad()


@pytest.mark.parametrize("name", ["white_noise", "pink_noise", "hum", "clicks", "typing", "tones"])
def test_noise_hum_clicks_typing_and_tones_alone_never_open_an_utterance(vad, name):
    events = replay(wave_of(name), vad)
    assert [e.type for e in events if e.type in ("speech", "commit")] == [], name


def test_a_fan_switching_on_in_a_quiet_room_opens_nothing(vad):
    audio = np.concatenate([silence(1.0), noise(4.0, -25.0)])
    assert [e for e in replay(audio, vad) if e.type in ("speech", "commit")] == []


def test_speech_in_noise_at_0_db_snr_is_committed_as_two_phrases(vad):
    commits = [e for e in replay(wave_of("speech_snr0"), vad) if e.type == "commit"]
    assert len(commits) == 2, [(c.start, c.end) for c in commits]
    assert commits[0].start == 0.0 and 2.9 < commits[0].end < 3.6, (commits[0].start, commits[0].end)


def test_an_utterance_ends_after_pause_seconds_without_speech_and_not_at_shorter_pauses(vad):
    """speech_pauses: five phrases, silences of 0.2, 0.5, 1.0 and 2.0 s between them (espeak adds its
    own ~0.3 s); with pause=1.5 only the 2 s silence ends an utterance."""
    commits = [e for e in replay(wave_of("speech_pauses"), vad, pause=1.5) if e.type == "commit"]
    assert [c.reason for c in commits] == ["pause", "flush"], [(c.start, c.end, c.reason) for c in commits]
    latency = commits[0].latency  # on the fake clock, with a free engine: the time the end-pointer waited
    assert 1.5 <= latency <= 1.5 + 0.032 + 0.02, f"{latency:.3f} s: pause + at most a window and a frame"


def test_commits_are_the_same_however_the_audio_is_blocked(vad):
    audio = wave_of("speech_snr10")
    runs = [[(e.start, e.end, e.text) for e in replay(audio, vad, block=b) if e.type == "commit"] for b in (160, 2048)]
    assert runs[0] == runs[1] and runs[0], runs
