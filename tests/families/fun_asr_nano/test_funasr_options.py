"""Fun-ASR-Nano through the library's options, against the official goldens (tests/fixtures/funasr):
hotwords in its official `keywords` block, a clip up to its limit in one pass, its own answer parser and
token rate in every engine, and its texts joined by script."""

import mlx.core as mx
import numpy as np
import pytest
from funasr_goldens import VARIANTS, clip, load_funasr_golden

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.prefix_cache import PrefixCache
from mlx_qwen3asr.streaming.window_decoder import final_text

MAX_NEW_TOKENS = 24  # what the goldens were generated with
SR = mq.SAMPLE_RATE


def official_tokens(golden: dict, variant: str, eos) -> list[int]:
    tokens = golden[f"{variant}_tokens"].tolist()  # an official EOS, if any, ends it; ours drops it
    return tokens[:-1] if tokens and tokens[-1] in eos else tokens


def options_of(variant: str) -> mq.DecodeOptions:
    request = VARIANTS[variant]
    return mq.DecodeOptions(request.get("language"), request.get("prompt", ""), MAX_NEW_TOKENS,
                            hotwords=request.get("keywords", ()))  # fmt: skip


@pytest.mark.parametrize("variant", ["keywords", "all"])
def test_hotwords_through_transcribe_give_the_official_keywords_prompt_and_tokens(funasr, variant):
    golden, options = load_funasr_golden("short"), options_of(variant)
    ids = funasr.prompt_ids(int(golden["n_frames"]), options.context, options.language, options.hotwords)
    assert ids == golden[f"{variant}_prompt_ids"].tolist(), "the official keywords block, token for token"
    result = mq.transcribe(clip("short"), funasr, options=options)
    assert result.segments[0].token_ids == official_tokens(golden, variant, funasr.tokenizer.eos_token_ids)


def test_hotwords_are_a_keyword_of_transcribe_and_an_option_of_transcribe_batch(funasr):
    want = official_tokens(load_funasr_golden("short"), "keywords", funasr.tokenizer.eos_token_ids)
    one = mq.transcribe(clip("short"), funasr, hotwords=["Qwen", "MLX"], max_new_tokens=MAX_NEW_TOKENS)
    batch = mq.transcribe_batch(
        [clip("short")], funasr, options=mq.DecodeOptions(hotwords=("Qwen", "MLX"), max_new_tokens=MAX_NEW_TOKENS)
    )
    assert one.segments[0].token_ids == batch[0].segments[0].token_ids == want


def test_hotwords_are_part_of_the_prefix_cache_key(funasr):
    cache = PrefixCache(funasr)
    plain, hot = cache.head(), cache.head(hotwords=("Qwen", "MLX"))
    assert plain is not hot and cache.stats()["contexts"] == 2 and cache.stats()["misses"] == 2
    assert cache.head(hotwords=("Qwen", "MLX")) is hot and cache.stats()["hits"] == 1


@pytest.mark.parametrize("variant", ["plain", "english", "keywords"])
def test_a_40_s_clip_is_one_pass_with_the_official_tokens(funasr, variant):
    golden = load_funasr_golden("joined40")
    result = mq.transcribe(clip("joined40"), funasr, options=options_of(variant))
    assert len(result.segments) == 1, "the official runs anything up to 2048 LFR frames in one pass"
    assert result.segments[0].token_ids == official_tokens(golden, variant, funasr.tokenizer.eos_token_ids)


def test_the_default_chunk_is_the_encoders_one_pass_limit(funasr):
    assert funasr.chunk_seconds == pytest.approx(122.88)
    assert funasr.features(np.zeros(int(funasr.chunk_seconds * SR), np.float32)).shape[0] == 2048
    assert funasr.audio_tokens_per_second * 60 == pytest.approx(funasr.features(np.zeros(60 * SR)).shape[0], abs=1)
    result = mq.transcribe(clip("joined40"), funasr, chunk_seconds=20, max_new_tokens=2)
    lengths = [s.end - s.start for s in result.segments]
    assert len(lengths) == 3 and max(lengths) <= 20, f"chunk_seconds still overrides it: {lengths}"


def test_the_window_engine_reads_an_answer_with_fun_asr_nanos_parser(funasr):
    looping = "哈" * 30 + "好"  # Qwen3-ASR's clean-up would cut the run to one character
    ids = funasr.tokenizer.encode(looping)
    assert final_text(funasr, ids, "", None) == ("", looping), "the official returns the text as decoded"
    assert final_text(funasr, ids, "", "Chinese") == ("Chinese", looping)


def test_chinese_chunks_are_joined_without_spaces_though_no_language_is_reported(funasr):
    text = funasr.join_text(funasr.join_text("", "今天天气很好。"), "我们去公园吧")
    assert text == "今天天气很好。我们去公园吧"
    assert funasr.join_text("Hello.", "How are you?") == "Hello. How are you?"


def test_codes_force_the_instruction_language(funasr):
    assert funasr.prompt_ids(3, language="zh") == funasr.prompt_ids(3, language="Chinese")
    golden = load_funasr_golden("short")
    by_code = mq.transcribe(clip("short"), funasr, language="en", max_new_tokens=MAX_NEW_TOKENS)
    assert by_code.segments[0].token_ids == official_tokens(golden, "english", funasr.tokenizer.eos_token_ids)
    assert mx.array(by_code.segments[0].token_ids).size > 0
