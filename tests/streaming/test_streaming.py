"""Streaming: policy with a fake decoder and clock; exactness and invariants on the tiny random model."""

import itertools
from pathlib import Path

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.audio import resample
from mlx_qwen3asr.decode.answer import read_partial
from mlx_qwen3asr.decode.generate import find_loop
from mlx_qwen3asr.families.qwen3_asr.answer import parse_output, parse_partial
from mlx_qwen3asr.families.qwen3_asr.encoder import n_audio_tokens
from mlx_qwen3asr.families.qwen3_asr.encoder_cache import EncoderCache
from mlx_qwen3asr.families.recogniser import encode_audio
from mlx_qwen3asr.streaming import StreamingTranscriber, StreamingTuning
from mlx_qwen3asr.streaming.window_decoder import Decoding, WindowDecoder, rollback

AUDIO = Path(__file__).resolve().parents[1] / "fixtures/audio"

SR = mq.SAMPLE_RATE
OFF = StreamingTuning(encoder_cache=False, kv_reuse=False, draft=False)
ON = StreamingTuning()
SIX = mq.DecodeOptions(max_new_tokens=6)  # random weights never stop: 6 tokens per run


def loud(seconds: float, seed: int = 0) -> np.ndarray:
    """Noise at about -23 dBFS in 100 ms syllables, each ending in a 20 ms dip to -63 dBFS: speech
    to the voice-activity rule (steady noise is not), heard as words by the fake decoder."""
    pcm = np.random.default_rng(seed).standard_normal(int(seconds * SR)) * 0.07
    pcm[np.arange(len(pcm)) % 1600 >= 1280] *= 0.01
    return pcm.astype(np.float32)


def quiet(seconds: float) -> np.ndarray:
    """Noise at about -80 dBFS: a silent room, below the floor."""
    return (np.random.default_rng(9).standard_normal(int(seconds * SR)) * 1e-4).astype(np.float32)


# --- a fake decoder: "says" two words per loud second of its audio -------------------------------


def loud_frames(audio: np.ndarray) -> np.ndarray:
    """The fake decoder's ear: 100 ms frames whose level reaches -50 dBFS."""
    frames = audio[: len(audio) // 1600 * 1600].reshape(-1, 1600)
    return 10 * np.log10(np.mean(np.square(frames, dtype=np.float64), axis=1) + 1e-20) >= -50.0


HEADER = [0, 1, 2]  # "language English<asr_text>"


class FakeTokenizer:  # its answers open with "language English<asr_text>" (HEADER), as Qwen3-ASR's do
    def decode(self, ids, skip_special_tokens=True) -> str:
        words = {0: "language", 1: " English", 2: "<asr_text>"}
        return "".join(words.get(i, f" w{i - 10}") for i in ids)


class FakeEngine:
    def __init__(self, loop_on_call=None):
        self.tokenizer = FakeTokenizer()
        self.parse_output, self.parse_partial = parse_output, parse_partial  # Qwen3-ASR's reading
        self.calls: list[dict] = []
        self.resets = 0
        self.loop_on_call = loop_on_call

    def decode(self, audio, prefix, draft, max_new_tokens) -> Decoding:
        self.calls.append(dict(seconds=len(audio) / SR, prefix=list(prefix), draft=list(draft)))
        words = int(loud_frames(audio).sum()) // 5
        hypothesis = HEADER + [10 + k for k in range(words)]
        new = hypothesis[len(prefix) :] if hypothesis[: len(prefix)] == list(prefix) else []
        return Decoding(new, finish_reason="repetition" if len(self.calls) == self.loop_on_call else "stop")

    def reset(self) -> None:
        self.resets += 1


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


def fake_stream(engine=None, **kwargs) -> tuple[StreamingTranscriber, FakeEngine]:
    engine = engine or FakeEngine()
    return StreamingTranscriber.on_decoder(engine, clock=FakeClock(), **kwargs), engine


def feed_all(stream: StreamingTranscriber, audio: np.ndarray, sizes) -> list:
    """Feed audio in pieces of the given sizes (cycled), then finish; every Update in order."""
    updates, start = [], 0
    for size in itertools.cycle(sizes):
        if start >= len(audio):
            break
        updates.append(stream.feed(audio[start : start + size]))
        start += size
    return updates + [stream.finish()]


# --- policy ----------------------------------------------------------------------------------------


def test_first_two_runs_commit_nothing_then_all_but_the_last_five_tokens_are_committed():
    stream, engine = fake_stream()
    updates = [stream.feed(loud(2.0, seed=i)) for i in range(4)]
    assert [u.committed for u in updates[:2]] == ["", ""], "the first runs of a window force no prefix"
    assert [c["prefix"] for c in engine.calls[:2]] == [[], []]
    # Run 3 forces run 2's 3 + 8 ids minus 5: the header and words w0..w2.
    assert engine.calls[2]["prefix"] == HEADER + [10, 11, 12], engine.calls[2]
    assert updates[2].committed == "w0 w1 w2", updates[2]
    assert updates[2].committed + updates[2].tentative == " ".join(f"w{k}" for k in range(12))
    assert updates[3].new_committed == " w3 w4 w5 w6", "each run commits what the last run rolled back"
    assert engine.calls[2]["draft"] == [13, 14, 15, 16, 17], "the draft: run 2 after the prefix"
    assert engine.calls[3]["draft"] == [17, 18, 19, 20, 21]


def test_timing_figures_come_from_the_clock_and_count_only_decoder_runs():
    stream, _ = fake_stream()
    buffered = stream.feed(loud(1.5))
    assert (buffered.steps, buffered.compute_seconds) == (0, 0.0), "buffering alone costs nothing"
    update = stream.feed(loud(2.5))  # 4 s in all: two steps
    assert update.steps == 2, update
    assert update.compute_seconds == pytest.approx(0.5), "0.25 s per run on the fake clock"
    assert update.audio_seconds == pytest.approx(4.0)


@pytest.mark.parametrize("silence", [np.zeros(10 * SR, np.float32), quiet(10)], ids=["digital", "room"])
def test_silence_runs_no_decoder_and_gives_no_text(silence):
    stream, engine = fake_stream()
    updates = [stream.feed(silence[i : i + 3200]) for i in range(0, len(silence), 3200)]
    assert len(stream.window.audio) <= 2.5 * SR, "an idle window keeps 0.5 s before the last chunk"
    updates.append(stream.finish())
    assert engine.calls == [], "silence must not reach the decoder"
    assert all(u.text == "" for u in updates), "no text may be invented on silence"


def room_tone_with_one_louder_frame() -> np.ndarray:
    """-55 dBFS steady room tone for 8 s with one 100 ms frame at -30 dBFS in the middle."""
    tone = (np.random.default_rng(3).standard_normal(8 * SR) * 10 ** (-55 / 20)).astype(np.float32)
    tone[4 * SR : 4 * SR + 1600] *= 10 ** (25 / 20)
    return tone


def clicks() -> np.ndarray:
    """Digital silence with a 10 ms click at 0.8 of full scale every 1.5 s."""
    audio = np.zeros(8 * SR, np.float32)
    for at in np.arange(0.5, 8, 1.5):
        audio[int(at * SR) : int(at * SR) + 160] = 0.8
    return audio


@pytest.mark.parametrize("audio", [room_tone_with_one_louder_frame(), clicks()], ids=["room-tone", "clicks"])
def test_near_silence_runs_no_decoder_by_the_voice_activity_rule(audio):
    stream, engine = fake_stream()
    updates = feed_all(stream, audio, [3200])
    assert engine.calls == [], f"no speech here, but the decoder ran {len(engine.calls)} times"
    assert updates[-1].text == ""


def push_all(stream: StreamingTranscriber, audio: np.ndarray, voiced: np.ndarray, size: int) -> list:
    """push() audio with its speech flags in pieces of `size`; every Update in order."""
    return [stream.push(audio[i : i + size], voiced[i : i + size]) for i in range(0, len(audio), size)]


def test_speech_flags_pushed_with_the_audio_decide_what_is_speech_not_the_level_rule():
    audio = np.concatenate([loud(3.0), quiet(3.0), loud(2.0, seed=1)])
    heard = np.zeros(len(audio), bool)
    heard[3 * SR : 6 * SR] = True  # the caller's VAD: speech only in the quiet middle
    stream, engine = fake_stream(chunk_seconds=1.0)
    push_all(stream, audio, np.zeros(len(audio), bool), 16000)  # the VAD heard no speech anywhere
    assert engine.calls == [], "the caller's VAD heard no speech: loud audio is not decoded"
    stream, engine = fake_stream(chunk_seconds=1.0)
    text = push_all(stream, audio, heard, 16000)[-1].text
    assert [c["seconds"] for c in engine.calls][:1] == [1.5], "decoding starts with the flagged speech"
    cut, cut_engine = fake_stream(chunk_seconds=1.0)
    assert push_all(cut, audio, heard, 7001)[-1].text == text, "pushed in other pieces: the same text"
    assert cut_engine.calls == engine.calls, "flags are held with their samples until a chunk is whole"


def test_speech_flags_must_come_one_per_sample_and_with_every_block_or_none():
    stream, _ = fake_stream(chunk_seconds=1.0)
    with pytest.raises(ValueError, match="one flag per sample: 3 flags for 4 samples"):
        stream.push(np.zeros(4, np.float32), np.zeros(3, bool))
    stream.push(np.zeros(100, np.float32), np.zeros(100, bool))
    with pytest.raises(ValueError, match="with its speech flags, or none"):
        stream.push(np.zeros(100, np.float32))


def test_a_two_second_pause_commits_everything_and_starts_a_new_window():
    stream, engine = fake_stream()
    for i in range(3):
        stream.feed(loud(2.0, seed=i))
    resets = engine.resets
    update = stream.feed(quiet(2.0))
    assert update.tentative == "" and update.committed.endswith("w11"), update
    assert engine.calls[-1]["seconds"] == pytest.approx(7.0), "the closing run hears 1 s of the pause"
    assert engine.resets == resets + 1, "the window was closed"
    stream.feed(loud(2.0, seed=5))
    assert engine.calls[-1]["prefix"] == [], "next speech: a fresh window"
    assert engine.calls[-1]["seconds"] == pytest.approx(2.5), "the pause is not decoded again"


def test_a_pause_across_two_chunks_closes_the_window_inside_the_pause():
    audio = np.concatenate([loud(3.0), quiet(2.5), loud(2.5, seed=1)])  # pause at 3.0-5.5 s
    stream, engine = fake_stream()
    feed_all(stream, audio, [SR])
    seconds = [round(c["seconds"], 1) for c in engine.calls]
    # 6 s: the chunk 4-6 s ends in speech, but holds the end of a 2.5 s pause: cut 1 s into it.
    assert seconds == [2.0, 4.0, 4.0, 2.0, 4.0, 4.0], seconds  # the last: finish()
    assert engine.calls[3]["prefix"] == [], "the speech after the pause starts a new window"


def test_a_full_window_is_cut_at_its_quietest_point_and_the_rest_decoded_anew():
    audio = np.concatenate([loud(6.0), quiet(0.3), loud(3.7, seed=1)])
    stream, engine = fake_stream(window_seconds=10.0)
    updates = feed_all(stream, audio, [SR])
    seconds = [round(c["seconds"], 1) for c in engine.calls]
    # Steps at 2, 4, 6, 8 s; at 10 s the next chunk would pass the cap: cut inside the 6.0-6.3 s gap.
    assert seconds[:4] == [2.0, 4.0, 6.0, 8.0], seconds
    assert 6.0 <= seconds[4] <= 6.3 and seconds[5] == pytest.approx(10.0 - seconds[4], abs=0.1), seconds
    assert engine.calls[5]["prefix"] == [], "the remainder starts a window with no text"
    assert updates[-1].committed.startswith("w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w0"), updates[-1]


def test_the_prefix_cap_closes_the_window():
    stream, engine = fake_stream(max_prefix_tokens=8)
    for i in range(5):
        stream.feed(loud(2.0, seed=i))
    # At 8 s the prefix would be 10 ids > 8: the window is closed (that run still forces the 10),
    # and the rest of its audio is decoded in a new window.
    assert [len(c["prefix"]) for c in engine.calls] == [0, 0, 6, 10, 0, 0], engine.calls
    assert engine.resets == 2, "created once, closed once"


def test_a_repetition_loop_closes_the_window_and_drops_its_audio():
    stream, engine = fake_stream(FakeEngine(loop_on_call=3))
    updates = [stream.feed(loud(2.0, seed=i)) for i in range(4)]
    assert updates[2].tentative == "" and updates[2].committed.endswith("w11"), updates[2]
    assert engine.calls[3]["prefix"] == [] and engine.calls[3]["seconds"] == pytest.approx(2.0)


def test_updates_join_committed_and_tentative_into_the_full_text():
    stream, _ = fake_stream()
    previous = ""
    for update in feed_all(stream, np.concatenate([loud(5), quiet(4.5), loud(5, seed=3)]), [7000]):
        assert update.committed.startswith(previous), "committed text must only grow"
        assert update.new_committed == update.committed[len(previous) :]
        previous = update.committed
    assert update.committed == "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w0 w1 w2 w3 w4 w5 w6 w7 w8 w9", update
    assert update.language == "English"


def test_bad_arguments_say_what_to_do():
    with pytest.raises(ValueError, match="at least 0.5"):
        fake_stream(chunk_seconds=0.2)
    stream, _ = fake_stream()
    with pytest.raises(ValueError, match="nan_to_num"):
        stream.feed(np.array([0.0, np.nan], np.float32))
    with pytest.raises(TypeError, match="real numbers"):
        stream.feed(np.zeros(4, np.complex64))


def test_int32_and_channels_first_blocks_follow_the_offline_rule():
    pcm = loud(4.0)
    expected = fake_stream()[0].feed(pcm).text
    assert expected != ""
    assert fake_stream()[0].feed((pcm * (2**31 - 1)).astype(np.int32)).text == expected, "int32 like offline"
    assert fake_stream()[0].feed(np.stack([pcm, pcm])).text == expected, "[2, n] is two channels, not 2 samples"


def test_int16_and_float32_input_give_the_same_steps():
    pcm = (loud(4.0) * 32768).astype(np.int16)
    a, b = fake_stream()[0], fake_stream()[0]
    assert a.feed(pcm).text == b.feed(pcm.astype(np.float32) / 32768).text != ""


# --- text helpers ----------------------------------------------------------------------------------


def test_the_partial_reading_of_a_prefix_is_a_prefix_of_the_text(tiny_model):
    tokenizer = tiny_model.tokenizer
    ids = tokenizer.encode("language English<asr_text>Ein Maß 𝄞 voll, naïve 日本語 text.")
    texts = [read_partial(tiny_model, ids[:n])[1] for n in range(len(ids) + 1)]
    for shorter, longer in zip(texts, texts[1:]):
        assert longer.startswith(shorter.rstrip("\ufffd")), (shorter, longer)
    assert texts[-1] == "Ein Maß 𝄞 voll, naïve 日本語 text."
    assert read_partial(tiny_model, ids)[0] == "English"


def test_rollback_never_ends_inside_a_utf8_character(tiny_model):
    tokenizer = tiny_model.tokenizer
    ids = tokenizer.encode("language German<asr_text>Grüße 𝄞𝄞 日本")
    for n in range(len(ids)):
        kept = rollback(tokenizer, ids, n, floor=0)
        assert "\ufffd" not in tokenizer.decode(kept), (n, kept)
        assert len(kept) <= len(ids) - n
    assert rollback(tokenizer, ids, len(ids), floor=4) == ids[:4], "never below the committed ids"


# --- the real decoder on the tiny model ------------------------------------------------------------


def speech_session() -> np.ndarray:
    """~80 s of espeak speech with pauses (digital silence and room noise) between clips."""
    names = ("long", "short", "exact", "long", "short", "long", "exact", "long")
    clips = [mq.load_audio(AUDIO / f"{name}.wav") for name in names]
    gaps = [np.zeros(int(2.5 * SR), np.float32)] + [quiet(s) for s in (2.5, 1.0, 0.4, 3.0, 1.5, 0.2)]
    pieces = itertools.chain.from_iterable(itertools.zip_longest(clips, gaps))
    return np.concatenate([x for x in pieces if x is not None])


@pytest.fixture(scope="module")
def session_updates(tiny_model):
    """Every Update of the session streamed with all optimisations on, and with all off."""
    audio = speech_session()
    return {
        name: feed_all(StreamingTranscriber(tiny_model, SIX, tuning=o, window_seconds=12.0), audio, [32000])
        for name, o in (("on", ON), ("off", OFF))
    }


def test_optimisations_on_and_off_give_the_same_text_on_a_session_with_pauses(session_updates):
    on, off = session_updates["on"], session_updates["off"]
    assert on[-1].committed, "the session must produce text"
    assert [u.committed for u in on] == [u.committed for u in off], "committed text differs"
    assert [u.tentative for u in on] == [u.tentative for u in off], "tentative text differs"


def test_committed_text_only_grows_and_holds_no_loop(tiny_model, session_updates):
    updates = session_updates["on"]
    for previous, update in zip(updates, updates[1:]):
        assert update.committed.startswith(previous.committed), (previous.committed, update.committed)
    assert updates[-1].tentative == ""
    ids = tiny_model.tokenizer.encode(updates[-1].committed)
    assert not any(find_loop(ids[:n]) for n in range(len(ids) + 1)), "a repetition loop was committed"


@pytest.fixture(scope="module")
def long_golden_off(tiny_model) -> list:
    audio = mq.load_audio(AUDIO / "long.wav")
    return feed_all(StreamingTranscriber(tiny_model, SIX, tuning=OFF), audio, [SR])


@pytest.mark.parametrize("switch", ["encoder_cache", "kv_reuse", "draft"])
def test_each_optimisation_alone_changes_no_text_on_the_long_golden(tiny_model, long_golden_off, switch):
    alone = StreamingTuning(**{**vars(OFF), switch: True})
    audio = mq.load_audio(AUDIO / "long.wav")
    updates = feed_all(StreamingTranscriber(tiny_model, SIX, tuning=alone), audio, [SR])
    assert [u.text for u in updates] == [u.text for u in long_golden_off], f"{switch} changed the text"
    assert updates[-1].committed, "the golden must produce text"


def test_output_does_not_depend_on_how_audio_is_cut_into_feeds(tiny_model):
    audio = mq.load_audio(AUDIO / "long.wav")[: int(4.5 * SR)]
    sizes = {"1 sample": [1], "0.1 s": [1600], "2 s": [32000], "random": [1, 7000, 123, 40000, 5]}
    texts = {}
    for name, cut in sizes.items():
        updates = feed_all(StreamingTranscriber(tiny_model, SIX, chunk_seconds=1.0, tuning=ON), audio, cut)
        texts[name] = [(u.committed, u.tentative) for u in updates if u.steps]
    assert texts["2 s"][-1][0], "the audio must produce text"
    for name, got in texts.items():
        assert got[-1] == texts["2 s"][-1], f"feeding {name} at a time changed the final text"
        assert set(got) <= set(texts["1 sample"]), f"feeding {name} at a time gave other updates"


@pytest.mark.parametrize("name", ["short", "exact"])
@pytest.mark.parametrize("language, context", [(None, ""), ("English", "Names: Qwen")])
def test_input_shorter_than_a_chunk_gives_the_offline_transcript(tiny_model, name, language, context):
    audio = mq.load_audio(AUDIO / f"{name}.wav")
    stream = StreamingTranscriber(tiny_model, mq.DecodeOptions(language, context, 6), chunk_seconds=4.0, tuning=ON)
    assert stream.feed(audio).steps == 0
    streamed = stream.finish()
    offline = mq.transcribe(audio, tiny_model, language=language, context=context, max_new_tokens=6)
    assert streamed.committed == offline.text and streamed.tentative == "", (streamed, offline.text)


# --- the pieces behind the optimisations -----------------------------------------------------------


def test_encoder_cache_matches_the_whole_clip_encoding_as_audio_grows(tiny_model):
    """Digital silence first, then louder audio: the clamp floor rises and windows are rebuilt."""
    speech = mq.load_audio(AUDIO / "long.wav")
    audio = np.concatenate([np.zeros(9 * SR, np.float32), speech, loud(2) * 5])
    cache = EncoderCache(tiny_model)
    # Ends on and just past window boundaries, and with a last window of one partial chunk (50 frames).
    for end in (int(seconds * SR) for seconds in (2, 8, 8.01, 11, 16.5, 17, 24.3, 26.6)):
        features, stable = cache.features(audio[:end])
        reference = encode_audio(tiny_model, audio[:end])
        np.testing.assert_allclose(np.array(features), np.array(reference), atol=2e-5, err_msg=str(end))
        assert stable % 104 == 0 and stable <= features.shape[0]
    assert cache.rebuilds > 0, "the silent window must be rebuilt when the maximum rises"


def test_draft_verification_is_greedy_exact_whatever_the_draft(tiny_model):
    audio = mq.load_audio(AUDIO / "long.wav")[: 5 * SR]
    plain = WindowDecoder(tiny_model, draft=False).decode(audio, [], [], 12).token_ids
    assert len(plain) >= 4, plain
    for draft in (plain, plain[:3] + [7, 7, 7], [5] * 20, []):
        got = WindowDecoder(tiny_model).decode(audio, [], draft, 12)
        assert got.token_ids == plain, (draft, got.token_ids)
    assert WindowDecoder(tiny_model).decode(audio, [], plain, 12).draft_accepted == len(plain)


def test_kv_reuse_prefills_only_the_changed_audio_and_the_text(tiny_model):
    audio = mq.load_audio(AUDIO / "long.wav")
    decoder = WindowDecoder(tiny_model)
    first = decoder.decode(audio[: 12 * SR], [], [], 4)
    second = decoder.decode(audio[: 14 * SR], [], first.token_ids, 4)
    changed_audio = n_audio_tokens(14 * SR // 160) - 104  # the first 8 s window is unchanged
    assert second.prefilled == changed_audio + len(decoder.tail), "only new audio and text are prefilled"
    fresh = WindowDecoder(tiny_model, kv_reuse=False).decode(audio[: 14 * SR], [], [], 4)
    assert second.token_ids == fresh.token_ids


def test_a_stream_told_its_blocks_are_at_44_1_khz_gives_the_text_of_the_16_khz_resampled_input(listening_model, speech):
    audio44 = resample(np.concatenate([speech, np.zeros(SR, np.float32), speech]), SR, 44100)
    want = feed_all(StreamingTranscriber(listening_model), resample(audio44, 44100, SR), [8000])
    got = feed_all(StreamingTranscriber(listening_model, sample_rate=44100), audio44, [22050])
    assert want[-1].committed, "the session must produce text"
    unspecified = feed_all(StreamingTranscriber(listening_model), audio44, [22050])
    assert unspecified[-1].committed != want[-1].committed, "taken as 16 kHz, the audio is 2.76x too slow"
    assert got[-1].committed == want[-1].committed and got[-1].tentative == want[-1].tentative == "", (
        "the same text (updates on the way may differ by when a step is due: the resampler holds back a few ms)"
    )


def test_finish_counts_the_audio_still_inside_the_resampler():
    """3.000 s fed at 44.1 kHz in blocks of 11025: the resampler holds its last few ms until finish()."""
    stream, _ = fake_stream(sample_rate=44100)
    tone = 0.1 * np.sin(np.arange(3 * 44100) * 2 * np.pi * 440 / 44100).astype(np.float32)
    updates = feed_all(stream, tone, [11025])
    assert updates[-2].audio_seconds < 3.0, f"while feeding, the resampler holds some back: {updates[-2].audio_seconds}"
    assert updates[-1].audio_seconds == pytest.approx(3.0, abs=1 / SR), f"finish() counts all 3 s: {updates[-1]}"
