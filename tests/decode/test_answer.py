"""The decode tail, written once (decode/answer.py): ids -> text -> the model's parse -> the echo guard. Offline
chunks, live finals that reuse the partials' work and the window engine all read tokens through it."""

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.answer import Answer, heard_answer, read_answer, read_partial
from mlx_qwen3asr.decode.prefix_cache import PrefixCache, prefix_cache_for
from mlx_qwen3asr.testing.signals import RATE, burst, silence

HOTWORDS = ("Qwen", "DashScope", "Zürich")


def ids_of(model, text: str) -> list[int]:
    return model.tokenizer.encode(text)


def test_a_whole_answer_is_read_as_the_official_parse_and_a_partial_one_append_only(tiny_model):
    ids = ids_of(tiny_model, "language German<asr_text>Guten Tag.")
    assert read_answer(tiny_model, ids) == ("German", "Guten Tag."), "the header gives the language"
    assert read_answer(tiny_model, ids, "English") == ("English", "language German<asr_text>Guten Tag."), (
        "a forced language: the prompt held the header, the whole answer is text"
    )
    assert read_partial(tiny_model, ids[:2]) == ("", ""), "a header still being written shows no text"


def test_an_answer_that_only_repeats_the_hotwords_over_silence_is_dropped_and_says_so(tiny_model):
    """The guard compares with the context and the hotwords (DecodeOptions.prompt_text), as offline does:
    hotwords alone are enough to be echoed."""
    options = mq.DecodeOptions("English", hotwords=HOTWORDS)
    echo = ids_of(tiny_model, "Qwen, DashScope, Zürich")
    assert heard_answer(tiny_model, echo, options, silence(1.0)) == Answer("English", "", True)
    speech = np.concatenate([silence(0.5), burst(1.0, seed=1)])  # an onset after quiet: speech to the rule
    heard = heard_answer(tiny_model, echo, options, speech)
    assert heard == Answer("English", "Qwen, DashScope, Zürich", False), "speech keeps its text, whatever it says"
    other = heard_answer(tiny_model, ids_of(tiny_model, "Good morning"), options, silence(1.0))
    assert other.text == "Good morning" and not other.context_echo, "text that is not the prompt is kept"


def test_the_prefix_cache_is_an_object_and_a_bool_is_refused_in_one_line_naming_the_fix(tiny_model):
    assert isinstance(prefix_cache_for(tiny_model, None), PrefixCache), "None: one of its own"
    shared = PrefixCache(tiny_model)
    assert prefix_cache_for(tiny_model, shared) is shared, "a PrefixCache: that one"
    off = PrefixCache.off(tiny_model)
    assert off.cache("Names: Qwen")[0].offset == 0 and off.stats()["misses"] == 0, "off: no head, nothing computed"
    for wrong in (True, False):
        with pytest.raises(TypeError) as error:
            mq.transcribe(np.zeros(RATE, np.float32), tiny_model, prefix_cache=wrong)
        assert "\n" not in str(error.value) and "PrefixCache.off(model)" in str(error.value), str(error.value)
