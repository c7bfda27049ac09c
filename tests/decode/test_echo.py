"""The echo guard: text that only repeats the context, over audio in which the voice-activity rule
hears no speech, is dropped and flagged; speech keeps its text whatever it says.

The tiny random model does not echo a context by itself. It does say nearly the same thing whatever
it is given, so a context holding what it says on a noise clip makes it "echo" for real: the
end-to-end tests build that context the way a user's hotword list would hold such terms.
"""

import json

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.echo import echoes_context, heard_speech, is_context_echo, words
from mlx_qwen3asr.families.qwen3_asr.answer import parse_output
from mlx_qwen3asr.outputs.formats import format_json

SR = 16000
CONTEXT = "Names: Qwen, MLX, Zürich, Tongyi, DashScope. Topic: speech recognition on MLX. " * 12  # ~290 tokens


@pytest.fixture(scope="module")
def noise() -> np.ndarray:
    """3 s of steady white noise at -26 dBFS: an onset for the offline check (so it is decoded), no
    speech for the full rule (its noise floor learns the level at once)."""
    return (0.05 * np.random.default_rng(0).standard_normal(3 * SR)).astype(np.float32)


@pytest.fixture(scope="module")
def echo_context(tiny_model, noise, speech) -> str:
    """A long context that holds, as terms, what the model says with it on the noise clip and on the
    speech clip: both decodes then repeat the context."""
    said: list[str] = []
    for _ in range(6):  # what it says settles after a few terms
        context = CONTEXT + ", ".join(said)
        segments = [transcribe_one(tiny_model, audio, context) for audio in (noise, speech)]
        texts = [parse_output(tiny_model.tokenizer.decode(s.token_ids), "English")[1] for s in segments]
        if all(echoes_context(text, context) for text in texts):
            return context
        said += [text for text in texts if text not in said]
    raise AssertionError(f"the model never repeated its context: {said}")


def transcribe_one(model, audio: np.ndarray, context: str) -> mq.Segment:
    return mq.transcribe(audio, model, context=context, language="English", max_new_tokens=6).segments[0]


def test_text_made_of_the_contexts_words_echoes_it_and_other_text_does_not():
    context = "Hotwords: Qwen3-ASR, DashScope, Zürich, 通义千问"
    assert echoes_context("Qwen3-ASR DashScope Zürich", context), "a run of its hotwords"
    assert echoes_context("hotwords: qwen3-asr, dashscope, zurich", context), "4 of 5 words are the context's"
    assert not echoes_context("hotwords qwen3-asr in zurich", context), "3 of 5 are not enough"
    assert echoes_context("HOTWORDS: QWEN3-ASR, DASHSCOPE, ZÜRICH", context), "the context itself, any case"
    assert echoes_context("通义千问", context), "each Chinese character is a word"
    assert not echoes_context("the meeting in Zürich starts at nine", context), "speech that names a hotword"
    assert not echoes_context("", context) and not echoes_context("Qwen", ""), "nothing to compare"
    assert words("Ｑwen3-ASR, 通义!") == ["qwen3", "asr", "通", "义"], "NFKC, case-folded, CJK split"


def test_the_voice_activity_rule_hears_speech_but_not_silence_noise_or_hum(noise, speech):
    hum = (0.3 * np.sin(2 * np.pi * 50 * np.arange(3 * SR) / SR)).astype(np.float32)
    assert heard_speech(speech), "espeak speech"
    for name, audio in (("silence", np.zeros(3 * SR, np.float32)), ("noise", noise), ("50 Hz hum", hum)):
        assert not heard_speech(audio), name
    assert is_context_echo("Qwen DashScope", CONTEXT, noise) and not is_context_echo("Qwen DashScope", CONTEXT, speech)


def test_a_context_echo_on_noise_gives_empty_text_and_says_why(tiny_model, noise, echo_context):
    result = mq.transcribe(noise, tiny_model, context=echo_context, language="English", max_new_tokens=6)
    segment = result.segments[0]
    raw = tiny_model.tokenizer.decode(segment.token_ids)
    assert segment.token_ids and echoes_context(raw, echo_context), "the model repeated its context"
    assert (result.text, segment.text, segment.context_echo, result.context_echo) == ("", "", True, True)
    assert json.loads(format_json(result))["segments"][0]["context_echo"] is True, "the JSON output says so"
    plain = mq.transcribe(noise, tiny_model, language="English", max_new_tokens=6)
    assert plain.text and not plain.context_echo, "without a context the same noise keeps its text"


def test_speech_with_the_same_context_keeps_its_text_even_when_it_sounds_like_an_echo(tiny_model, speech, echo_context):
    result = mq.transcribe(speech, tiny_model, context=echo_context, language="English", max_new_tokens=6)
    segment = result.segments[0]
    expected = parse_output(tiny_model.tokenizer.decode(segment.token_ids), "English")[1]
    assert echoes_context(expected, echo_context), "this model says its context words on speech too"
    assert (segment.text, segment.context_echo) == (expected, False), "speech must keep its text"
    assert result.text == expected != ""


def test_in_a_batch_only_the_row_without_speech_is_dropped(tiny_model, noise, speech, echo_context):
    options = mq.DecodeOptions("English", echo_context, max_new_tokens=6)
    results = mq.transcribe_batch([speech, noise, speech], tiny_model, options=options, batch_size=3)
    assert [(bool(r.text), r.context_echo) for r in results] == [(True, False), (False, True), (True, False)]
