"""Languages as names in any case and ISO-639-1 codes, everywhere a language is taken; each family's list
in its own home, and an unsupported one refused in one line that names that family's list."""

import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.fun_asr_nano.prompt import LANGUAGES as FUNASR_LANGUAGES
from mlx_qwen3asr.families.qwen3_asr.languages import LANGUAGES as QWEN3ASR_LANGUAGES
from mlx_qwen3asr.server.errors import APIError
from mlx_qwen3asr.server.languages import resolve_language
from mlx_qwen3asr.text.languages import CODES, canonical


@pytest.mark.parametrize(("given", "name"), [("zh", "Chinese"), ("EN", "English"), ("english", "English"),
                                             ("yue", "Cantonese"), ("tl", "Filipino"), (" ja ", "Japanese")])  # fmt: skip
def test_decode_options_take_codes_and_names_in_any_case(given, name):
    assert mq.DecodeOptions(language=given).language == name
    assert resolve_language(given) == name, "the server reads the same table"


def test_text_that_is_no_language_is_refused_in_one_line():
    with pytest.raises(ValueError, match=r"^Unsupported language 'xx': pass a language name .* ISO-639-1 code") as e:
        mq.DecodeOptions(language="xx")
    assert "\n" not in str(e.value)
    with pytest.raises(APIError) as error:
        resolve_language("xx")
    assert error.value.status == 400 and "ISO-639-1" in str(error.value.body())


def test_each_family_declares_its_own_list_with_codes():
    assert QWEN3ASR_LANGUAGES.names == mq.SUPPORTED_LANGUAGES and len(mq.SUPPORTED_LANGUAGES) == 30
    assert FUNASR_LANGUAGES.codes == {"zh": "Chinese", "en": "English", "ja": "Japanese"}
    assert set(CODES.values()) == set(QWEN3ASR_LANGUAGES.names), "every language has a code"
    assert all(canonical(code) == name for code, name in CODES.items())


def test_a_language_outside_the_familys_list_names_that_list_in_one_line():
    with pytest.raises(ValueError) as error:
        FUNASR_LANGUAGES.check("ko")
    message = str(error.value)
    assert message.startswith("Fun-ASR-Nano cannot be told the language 'ko': use one of Chinese (zh), English (en), "
                              "Japanese (ja)") and "\n" not in message  # fmt: skip


def test_qwen3_asr_takes_a_code_as_its_name(tiny_model, speech):
    by_code = mq.transcribe(speech, tiny_model, language="de", max_new_tokens=4)
    by_name = mq.transcribe(speech, tiny_model, language="German", max_new_tokens=4)
    assert by_code.segments[0].token_ids == by_name.segments[0].token_ids
    assert by_code.language == "German"
    assert tiny_model.prompt_ids(3, language="de") == tiny_model.prompt_ids(3, language="German")
