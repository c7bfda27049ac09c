"""Paraformer through the public API: mq.load of the release folder, mq.transcribe and transcribe_batch, refusals,
long audio, words, folder runs."""

import json

import numpy as np
import pytest
from paraformer_goldens import CLIPS, FIXTURES, clip, golden

import mlx_qwen3asr as mq


def test_load_reads_the_release_folder_without_torch(paraformer):
    assert paraformer.task == "transcribe" and len(paraformer.tokens) == 300
    assert len(paraformer.encoder.layers) == 3 and len(paraformer.decoder.decoders) == 2
    assert "cmvn" in paraformer, "the release's am.mvn is applied"


def test_transcribe_gives_funasr_ids_text_and_timed_words(paraformer):
    want = golden("short")
    result = mq.transcribe(clip("short"), paraformer)
    [segment] = result.segments
    assert segment.token_ids == want["ids"].tolist() and result.text == str(want["text"])
    assert [w.text for w in segment.words] == str(want["ts_text"]).split(" "), "funasr's words, one time each"


@pytest.mark.parametrize("name", CLIPS)
def test_transcribe_gives_funasr_text_for_every_golden_clip(paraformer, name):
    result = mq.transcribe(clip(name), paraformer)
    assert [s.token_ids for s in result.segments] == [golden(name)["ids"].tolist()], "one pass, funasr's ids"
    assert result.text == str(golden(name)["text"])


@pytest.mark.parametrize(
    "kwargs, option",
    [({"context": "names: Qwen"}, "context"), ({"hotwords": ["Qwen"]}, "hotwords"), ({"language": "zh"}, "language")],
)
def test_options_it_cannot_take_are_refused_in_one_line_before_audio_is_read(paraformer, tmp_path, kwargs, option):
    missing = tmp_path / "never-read.wav"
    with pytest.raises(ValueError) as error:
        mq.transcribe(missing, paraformer, **kwargs)
    message = str(error.value)
    assert "\n" not in message and "Paraformer" in message and "never-read" not in message, message


def test_long_audio_is_one_pass_up_to_60_s_and_cut_beyond(paraformer):
    want = golden("joined40")
    result = mq.transcribe(clip("joined40"), paraformer)
    assert len(result.segments) == 1 and result.segments[0].token_ids == want["ids"].tolist()
    twice = mq.transcribe(np.concatenate([clip("joined40"), clip("joined40")]), paraformer)
    assert len(twice.segments) == 2 and all(s.end - s.start <= 60.0 for s in twice.segments)
    first, second = twice.segments
    assert second.words[0].start >= first.end, "words are timed in the whole input"
    starts = [w.start for s in twice.segments for w in s.words]
    assert starts == sorted(starts)


def test_transcribe_batch_gives_each_input_what_it_gets_alone(paraformer):
    waves = [clip("short"), clip("exact"), clip("noise")]
    together = mq.transcribe_batch(waves, paraformer, batch_size=2)
    for wave, result in zip(waves, together):
        alone = mq.transcribe(wave, paraformer)
        assert [s.token_ids for s in result.segments] == [s.token_ids for s in alone.segments]
        assert result.text == alone.text


def test_a_folder_run_writes_the_librarys_text(paraformer, tmp_path):
    summary = mq.transcribe_files([FIXTURES / "audio"], mq.FolderSpec(paraformer), tmp_path, formats=["json"])
    assert summary.done == 3 and summary.failed == 0
    written = json.loads((tmp_path / "short.json").read_text(encoding="utf-8"))
    assert written["text"] == mq.transcribe(clip("short"), paraformer).text
