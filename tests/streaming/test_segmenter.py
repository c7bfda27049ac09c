"""The segmenter alone: synthetic sound in, utterance boundaries out (no model, no clock)."""

import numpy as np
import pytest

from mlx_qwen3asr.streaming.segmenter import FRAME, Segmenter
from mlx_qwen3asr.testing.signals import RATE, burst, noise, silence


def segment(audio: np.ndarray, block: int = 480, **settings) -> list:
    seg = Segmenter(**settings)
    found = [u for i in range(0, len(audio), block) for u in seg.push(audio[i : i + block])]
    last = seg.flush()
    return found + ([last] if last is not None else [])


def test_three_bursts_separated_by_pauses_give_three_utterances_with_pre_roll_and_tail():
    audio = np.concatenate(
        [silence(1.0), burst(1.5), silence(1.0), burst(2.0, seed=2), silence(1.0), burst(1.0, seed=3), silence(1.0)]
    )
    starts = [RATE, int(3.5 * RATE), int(6.5 * RATE)]
    ends = [int(2.5 * RATE), int(5.5 * RATE), int(7.5 * RATE)]
    found = segment(audio)
    assert len(found) == 3, f"expected 3 utterances, got {[(u.start, u.end) for u in found]}"
    for u, start, end in zip(found, starts, ends):
        assert start - 0.5 * RATE - FRAME <= u.start <= start - 0.5 * RATE + 2 * FRAME, (
            f"utterance should start 0.5 s before its speech at {start}, starts at {u.start}"
        )
        assert end <= u.speech_end <= end + FRAME, f"speech ends at {end}, detected {u.speech_end}"
        assert u.end == u.speech_end + int(0.3 * RATE), "0.3 s of the pause stays as a tail"
        assert u.reason == "pause", f"closed by {u.reason}"
        np.testing.assert_array_equal(u.audio, audio[u.start : u.end], "utterance audio is the input span")


def test_digital_silence_and_steady_noise_give_nothing():
    assert segment(silence(10.0)) == [], "digital silence must not open an utterance"
    assert segment(noise(30.0, -45.0)) == [], "steady noise is the floor, not speech"
    assert segment(noise(30.0, -70.0)) == [], "a quiet room must not open an utterance"


def test_clicks_and_short_bumps_give_nothing():
    audio = silence(4.0)
    for at in (0.5, 1.5, 2.5):
        audio[int(at * RATE) : int((at + 0.01) * RATE)] = 0.8  # 10 ms click
    audio[int(3.0 * RATE) : int(3.15 * RATE)] = burst(0.15)  # a 150 ms bump
    assert segment(audio) == [], "clicks and bumps must not make utterances"


def test_speech_over_steady_background_noise_is_found():
    speech = np.concatenate([silence(2.0), burst(1.5), silence(1.5), burst(1.5, seed=2), silence(1.5)])
    found = segment(speech + noise(len(speech) / RATE, -50.0))
    assert len(found) == 2, f"two utterances over the noise, got {len(found)}"


@pytest.mark.parametrize("gap, expected", [(0.4, 1), (0.8, 2)])
def test_only_a_pause_as_long_as_the_setting_ends_an_utterance(gap, expected):
    audio = np.concatenate([silence(1.0), burst(1.0), silence(gap), burst(1.0, seed=2), silence(1.0)])
    found = segment(audio, pause=0.6)
    assert len(found) == expected, f"a {gap} s gap with pause=0.6 gave {len(found)} utterances"


def test_the_same_audio_in_any_block_size_gives_the_same_utterances():
    audio = np.concatenate([silence(0.7), burst(1.3), silence(0.9), burst(0.8, seed=2), silence(0.2)])
    reference = [(u.start, u.end, u.reason) for u in segment(audio, block=480)]
    for block in (1, 7, 333, 16000, len(audio)):
        got = [(u.start, u.end, u.reason) for u in segment(audio, block=block)]
        assert got == reference, f"block size {block} changed the utterances"


def test_a_long_utterance_without_pauses_is_cut_at_its_quietest_point():
    dip = int(16.0 * RATE)
    audio = np.concatenate([silence(0.5), burst(24.0), silence(1.0)])
    audio[dip : dip + int(0.1 * RATE)] *= 0.05  # one quieter moment, not a pause
    found = segment(audio, max_seconds=20.0)
    assert [u.reason for u in found] == ["cut", "pause"], f"got {[u.reason for u in found]}"
    assert abs(found[0].end - dip) <= 0.1 * RATE, f"cut at {found[0].end / RATE:.2f} s, dip at 16 s"
    assert found[1].start == found[0].end, "the rest continues exactly where the cut was"
    assert all(len(u.audio) <= 20 * RATE for u in found), "no piece is longer than max_seconds"


def test_an_utterance_still_open_at_the_end_is_flushed():
    found = segment(np.concatenate([silence(1.0), burst(1.0)]))
    assert len(found) == 1 and found[0].reason == "flush", "end of input finalises the open utterance"
