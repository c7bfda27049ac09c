"""The live session's utterance engine: finals are exactly offline transcription; the streaming engine when present."""

import numpy as np
import pytest
from dictation_helpers import burst

import mlx_qwen3asr as mq
from mlx_qwen3asr.streaming.utterances import OfflineEngine, StreamingEngine, make_engine


def test_final_text_is_offline_transcription_of_the_same_audio(listening_model):
    audio = burst(1.5, seed=4)
    engine = OfflineEngine(listening_model, mq.DecodeOptions(max_new_tokens=6))
    expected = mq.transcribe(audio, listening_model, max_new_tokens=6).text
    assert expected, "the listening model should say something"
    assert engine.final(audio) == expected, "final must equal mlx_qwen3asr.decode.transcribe"


def test_context_and_language_reach_transcribe(listening_model):
    audio = burst(1.0, seed=5)
    engine = OfflineEngine(listening_model, mq.DecodeOptions("German", "Names: Qwen", max_new_tokens=4))
    expected = mq.transcribe(audio, listening_model, language="German", context="Names: Qwen", max_new_tokens=4)
    assert engine.final(audio) == expected.text and engine.language == "German"


def test_offline_partials_re_decode_the_utterance(tiny_model):
    assert type(make_engine(tiny_model, "offline")) is OfflineEngine, "offline partials re-run transcribe"


def test_streaming_partials_and_offline_finals(listening_model):
    audio = burst(2.0, seed=6)
    engine = make_engine(listening_model, "streaming", mq.DecodeOptions(max_new_tokens=6))
    assert isinstance(engine, StreamingEngine), "streaming partials come from the streaming engine"
    stream = mq.StreamingTranscriber(listening_model, mq.DecodeOptions(max_new_tokens=6), chunk_seconds=1.0)
    reference = stream.feed(audio).text.strip()
    partials = [engine.partial(audio[:n]) for n in (8000, 16000, 32000)]
    assert partials[-1] == reference, "fed piece by piece, the partial is the streaming text for all of it"
    assert engine.final(audio) == mq.transcribe(audio, listening_model, max_new_tokens=6).text
    assert engine.partial(audio) == reference, "each utterance starts a fresh stream"


def test_a_partial_decodes_what_the_sessions_vad_heard_even_where_the_level_rule_hears_nothing(listening_model):
    # A noisy room: speech under a steady noise floor is too quiet for the level rule (12 dB over the
    # floor), while the session's VAD (Silero by default) hears it. Voice is judged once, by the VAD.
    from mlx_qwen3asr.testing.signals import noise

    audio = noise(3.0, -28.0) + burst(3.0, level_db=-30.0, seed=7)
    heard = np.ones(len(audio), bool)
    options = mq.DecodeOptions(max_new_tokens=6)
    alone = make_engine(listening_model, "streaming", options)
    assert alone.partial(audio) == "", "the level rule alone hears only noise: nothing is decoded"
    engine = make_engine(listening_model, "streaming", options)
    stream = mq.StreamingTranscriber(listening_model, options, chunk_seconds=1.0)
    reference = stream.push(audio, heard).text.strip()
    assert reference, "pushed with the VAD's flags, the window engine decodes"
    assert [engine.partial(audio[:n], heard[:n]) for n in (16000, 48000)][-1] == reference


def test_the_warm_up_runs_both_decoders_it_is_meant_to_warm():
    from mlx_qwen3asr.streaming.utterances import warm_up_audio
    from mlx_qwen3asr.vad.energy import VoiceActivity, contains_speech

    audio = warm_up_audio()
    assert contains_speech(audio), "offline transcribe must not skip the warm-up as silence"
    assert VoiceActivity().push(audio).any(), "the streaming engine must hear speech in it, or it never decodes"


def test_the_partials_setting_has_one_spelling_everywhere(tiny_model):
    from mlx_qwen3asr.streaming.utterances import PARTIALS
    from mlx_qwen3asr_app.options import build_parser

    assert build_parser().parse_args([]).partials == "streaming", "the app's default is the library's"
    for wrong in ("auto", "stream"):
        with pytest.raises(ValueError, match="partials must be one of 'streaming', 'offline', 'off'"):
            make_engine(tiny_model, wrong)
        with pytest.raises(ValueError, match="partials must be one of"):
            mq.LiveSession(tiny_model, partials=wrong)
    assert [type(make_engine(tiny_model, p)).__name__ for p in PARTIALS] == [
        "StreamingEngine", "OfflineEngine", "OfflineEngine"
    ], "off: finals only, from transcribe"  # fmt: skip
