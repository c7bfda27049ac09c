"""Fun-ASR-Nano through the unchanged engine: transcribe, transcribe_batch, streaming, the live session."""

import shutil

import mlx.core as mx
import numpy as np
import pytest
from funasr_goldens import FIXTURES, clip, load_funasr_golden

import mlx_qwen3asr as mq
from mlx_qwen3asr.cli import main as cli
from mlx_qwen3asr.decode.answer import read_partial
from mlx_qwen3asr.families.fun_asr_nano import FunAsrNano
from mlx_qwen3asr.streaming import StreamingTranscriber, StreamingTuning

SR = mq.SAMPLE_RATE


def test_load_builds_a_fun_asr_nano_from_the_config_model_type(funasr):
    assert type(funasr) is FunAsrNano
    assert funasr.tokenizer.eos_token_ids == (151645,), "generation_config.json: <|im_end|> only"
    assert funasr.tokenizer.audio_pad_id == funasr.args.audio_token_id == 151646


def test_features_and_encode_are_the_shared_surface(funasr):
    features = funasr.features(clip("short"))
    assert features.shape == (43, 560) and features.dtype == mx.float32
    assert funasr.encode(features).shape == (43, funasr.args.text.hidden_size)


@pytest.mark.parametrize("language, variant", [(None, "plain"), ("English", "english"), ("Chinese", "chinese")])
def test_transcribe_decodes_the_official_tokens(funasr, language, variant):
    result = mq.transcribe(clip("short"), funasr, language=language)
    want = load_funasr_golden("short")[f"{variant}_tokens"].tolist()
    assert result.segments[0].token_ids[: len(want)] == want
    assert result.language == (language or ""), "a forced language is reported; none is detected"


def test_a_40_s_clip_in_one_chunk_is_the_official_single_pass(funasr):
    result = mq.transcribe(clip("joined40"), funasr, chunk_seconds=60, max_new_tokens=24)
    assert len(result.segments) == 1
    assert result.segments[0].token_ids == load_funasr_golden("joined40")["plain_tokens"].tolist()


def test_audio_past_the_encoders_2048_frames_is_refused_by_the_encoder_and_split_by_transcribe(funasr):
    wave = np.tile(clip("long"), 8)[: int(124 * SR)]  # 12398 fbank frames, 2067 LFR frames
    with pytest.raises(ValueError, match=r"2067 LFR frames .* takes \(2048, ~123 s, .*\): split the audio"):
        funasr.encode(funasr.features(wave))
    result = mq.transcribe(wave, funasr, max_new_tokens=2)  # one-pass chunks (122.88 s), cut at quiet points
    assert len(result.segments) == 2 and result.segments[-1].end == pytest.approx(124.0)
    assert all(s.end - s.start <= funasr.chunk_seconds for s in result.segments)


def test_a_language_the_instruction_cannot_name_is_refused_before_decoding(funasr):
    with pytest.raises(ValueError, match="Fun-ASR-Nano cannot be told the language 'German'"):
        mq.transcribe(clip("short"), funasr, language="German")


def test_batched_transcription_equals_each_input_alone(funasr):
    inputs = [clip("short"), clip("exact"), clip("noise")]
    batched = mq.transcribe_batch(inputs, funasr, options=mq.DecodeOptions(max_new_tokens=12), batch_size=3)
    for wave, got in zip(inputs, batched):
        alone = mq.transcribe(wave, funasr, max_new_tokens=12)
        assert [s.token_ids for s in got.segments] == [s.token_ids for s in alone.segments]


def test_streaming_input_shorter_than_a_chunk_gives_the_offline_transcript(funasr):
    audio = clip("short")
    options = mq.DecodeOptions("English", "Names: Qwen", 6)
    stream = StreamingTranscriber(funasr, options, chunk_seconds=4.0)
    assert stream.feed(audio).steps == 0
    streamed = stream.finish()
    offline = mq.transcribe(audio, funasr, language="English", context="Names: Qwen", max_new_tokens=6)
    assert streamed.committed == offline.text and streamed.tentative == ""


def test_streaming_gives_the_same_text_with_its_optimisations_on_and_off(funasr):
    audio = clip("long")[: 7 * SR]
    texts = []
    for on in (True, False):
        tuning = StreamingTuning(encoder_cache=on, kv_reuse=on, draft=on)
        stream = StreamingTranscriber(funasr, mq.DecodeOptions(max_new_tokens=8), chunk_seconds=1.0, tuning=tuning)
        for start in range(0, len(audio), SR):
            stream.feed(audio[start : start + SR])
        texts.append(stream.finish().committed)
    assert texts[0] and texts[0] == texts[1]


def test_a_live_session_commits_the_offline_text_of_each_utterance(funasr):
    speech = clip("short")
    audio = np.concatenate([np.zeros(SR, np.float32), speech, np.zeros(2 * SR, np.float32)])
    live = mq.LiveSession(funasr, mq.DecodeOptions(language="English"), partials="offline", refresh_every=None)
    events = []
    for start in range(0, len(audio), SR // 10):
        events += live.feed(audio[start : start + SR // 10])
    events += live.finish()
    commits = [e for e in events if e.type == "commit"]
    assert len(commits) == 1 and commits[0].text
    assert commits[0].text == mq.transcribe(commits[0].audio, funasr, language="English").text


def test_the_command_line_transcribes_with_a_fun_asr_nano_folder(funasr, funasr_dir, capsys):
    wav = str(FIXTURES / "audio" / "short.wav")
    assert cli.main([wav, "--model", str(funasr_dir), "--dtype", "float32", "--max-new-tokens", "12"]) == 0
    assert capsys.readouterr().out == mq.transcribe(wav, funasr, max_new_tokens=12).text + "\n"


def test_the_command_line_refuses_a_language_fun_asr_nano_cannot_be_told_in_one_line(funasr_dir, capsys):
    wav = str(FIXTURES / "audio" / "short.wav")
    assert cli.main([wav, "--model", str(funasr_dir), "--language", "German"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Fun-ASR-Nano cannot be told the language 'German'" in err


def test_a_checkpoint_that_stores_the_tied_head_loads_to_the_same_model(funasr, funasr_dir, tmp_path):
    folder = tmp_path / "with-head"
    shutil.copytree(funasr_dir, folder)
    weights = mx.load(str(folder / "model.safetensors"))
    weights["lm_head.weight"] = weights["model.language_model.embed_tokens.weight"]
    mx.save_safetensors(str(folder / "model.safetensors"), weights, {"format": "pt"})
    with_head = mq.load(folder, dtype="float32")
    wave = clip("short")
    assert mq.transcribe(wave, with_head, max_new_tokens=8).text == mq.transcribe(wave, funasr, max_new_tokens=8).text


def test_streaming_text_is_shown_at_once_since_fun_asr_nano_answers_have_no_language_header(funasr):
    ids = funasr.tokenizer.encode("lang")  # a Qwen3-ASR answer starting so would be its header being written
    assert read_partial(funasr, ids) == ("", "lang")
