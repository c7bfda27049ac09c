"""SenseVoiceSmall through the public API: mq.load of the release folder, mq.transcribe, options, JSON output."""

import json
import re

import numpy as np
import pytest
from sensevoice_goldens import clip, golden

import mlx_qwen3asr as mq
from mlx_qwen3asr.options import DecodeOptions
from mlx_qwen3asr.outputs.formats import format_json


def test_load_reads_the_release_folder_without_torch(sensevoice):
    assert sensevoice.task == "transcribe"
    assert sensevoice.args.vocab_size == 600 and len(sensevoice.vocabulary) == 600
    assert sensevoice.args.encoder.num_hidden_layers == 5, "3 blocks + 2 tp blocks"
    assert "cmvn" in sensevoice, "the release's am.mvn is applied"


def test_transcribe_gives_funasr_ids_and_its_text_without_tags(sensevoice):
    want = golden("short")
    result = mq.transcribe(clip("short"), sensevoice)
    [segment] = result.segments
    assert segment.token_ids == want["auto_noitn_ids"].tolist(), "the collapsed ids, tags included"
    funasr_text = str(want["auto_noitn_text"])
    assert "<|" in funasr_text and "<|" not in result.text
    assert result.text == re.sub(r"<\|[^|]*\|>", "", funasr_text).strip()


def test_language_forces_the_query_and_itn_asks_for_withitn(sensevoice):
    want = golden("short")
    result = mq.transcribe(clip("short"), sensevoice, options=DecodeOptions(language="ja", itn=True))
    assert result.segments[0].token_ids == want["ja_itn_ids"].tolist()
    assert result.language == "Japanese", "a forced language is the segment's language"
    zh = mq.transcribe(clip("short"), sensevoice, language="Chinese")
    assert zh.segments[0].token_ids == want["zh_noitn_ids"].tolist()


def test_the_language_comes_from_the_language_tag(sensevoice):
    result = mq.transcribe(clip("short"), sensevoice)
    tagged = sensevoice.vocabulary.parse(result.segments[0].token_ids)
    assert tagged.language == "ru", "this random checkpoint's first language tag"
    assert result.language == "Russian"


@pytest.mark.parametrize(
    "kwargs, option",
    [({"context": "names: Qwen"}, "context"), ({"hotwords": ["Qwen"]}, "hotwords"), ({"language": "de"}, "German")],
)
def test_options_it_cannot_take_are_refused_in_one_line_before_audio_is_read(sensevoice, tmp_path, kwargs, option):
    missing = tmp_path / "never-read.wav"
    with pytest.raises(ValueError) as error:
        mq.transcribe(missing, sensevoice, **kwargs)
    message = str(error.value)
    assert "\n" not in message and "SenseVoiceSmall" in message and "never-read" not in message, message


def test_itn_is_refused_by_a_model_without_the_switch(tiny_model):
    with pytest.raises(ValueError, match="inverse text normalisation"):
        DecodeOptions(itn=True).check(tiny_model)


def test_long_audio_is_one_pass_up_to_60_s_and_matches_funasr(sensevoice):
    want = golden("joined40")
    result = mq.transcribe(clip("joined40"), sensevoice)
    assert len(result.segments) == 1, "40 s is one pass, as funasr runs it without a VAD"
    assert result.segments[0].token_ids == want["auto_noitn_ids"].tolist()


def test_longer_audio_is_cut_into_chunks_of_at_most_60_s(sensevoice):
    wave = np.concatenate([clip("joined40"), clip("joined40")])
    result = mq.transcribe(wave, sensevoice)
    assert len(result.segments) == 2
    assert all(s.end - s.start <= 60.0 for s in result.segments)
    assert result.segments[1].start == result.segments[0].end


def test_words_have_times_in_the_whole_input_in_order(sensevoice):
    wave = np.concatenate([clip("joined40"), clip("joined40")])
    result = mq.transcribe(wave, sensevoice)
    for segment in result.segments:
        assert segment.words, "CTC frames time every piece"
        starts = [w.start for w in segment.words]
        assert starts == sorted(starts)
        assert all(segment.start <= w.start <= w.end <= segment.end + 0.06 for w in segment.words)
    assert result.segments[1].words[0].start >= result.segments[0].end


def test_json_output_carries_emotion_and_event_when_told(sensevoice):
    result = mq.transcribe(clip("short"), sensevoice)
    segment = result.segments[0]
    segment.emotion, segment.event = "HAPPY", "Laughter"
    document = json.loads(format_json(result))
    assert document["segments"][0]["emotion"] == "HAPPY" and document["segments"][0]["event"] == "Laughter"
    segment.emotion = segment.event = None
    assert "emotion" not in json.loads(format_json(result))["segments"][0]


def test_transcribe_batch_gives_each_input_what_it_gets_alone(sensevoice):
    waves = [clip("short"), clip("exact"), clip("long")]
    options = [DecodeOptions(language=language) for language in (None, "en", "zh")]
    together = mq.transcribe_batch(waves, sensevoice, options=options, batch_size=2)
    for wave, language, result in zip(waves, [None, "en", "zh"], together):
        alone = mq.transcribe(wave, sensevoice, language=language)
        assert [s.token_ids for s in result.segments] == [s.token_ids for s in alone.segments]
        assert result.text == alone.text and result.language == alone.language
