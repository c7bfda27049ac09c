"""Tokenizer, prompt and output parsing against values produced by the official implementation.

Fixtures: tests/fixtures/tokenizer_cases.json (encode/decode/prompt ids from transformers'
AutoTokenizer and the official Qwen3ASRProcessor) and tests/fixtures/parse_output_cases.json (the
official parse_asr_output); each file's "_source" says how it was made.
"""

import json
import shutil
import unicodedata
from pathlib import Path

import pytest
from tokenizers import Tokenizer as BackendTokenizer
from tokenizers import models

from mlx_qwen3asr.families.qwen3_asr.answer import parse_output
from mlx_qwen3asr.families.qwen3_asr.languages import SUPPORTED_LANGUAGES
from mlx_qwen3asr.families.qwen3_asr.prompt import build_prompt
from mlx_qwen3asr.options import DecodeOptions
from mlx_qwen3asr.testing.random_checkpoint import FIXTURES_DIR
from mlx_qwen3asr.text.languages import canonical as normalize_language
from mlx_qwen3asr.text.languages import is_space_delimited
from mlx_qwen3asr.text.tokenizer import EOS_TOKEN_IDS, Tokenizer

FIXTURES = Path(__file__).parents[1] / "fixtures"
CHECKPOINT = FIXTURES_DIR
CASES = json.loads((FIXTURES / "tokenizer_cases.json").read_text(encoding="utf-8"))
PARSE_CASES = json.loads((FIXTURES / "parse_output_cases.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    return Tokenizer.from_dir(CHECKPOINT)


@pytest.mark.parametrize("case", CASES["encode"], ids=lambda c: repr(c["text"])[:40])
def test_encode_gives_the_reference_ids(tokenizer, case):
    assert tokenizer.encode(case["text"]) == case["ids"]


def test_the_documented_answer_encodes_to_the_documented_ids(tokenizer):
    ids = tokenizer.encode("language English<asr_text>Hello world.<|im_end|>")
    assert ids == [11528, 6364, 151704, 9707, 1879, 13, 151645]


@pytest.mark.parametrize("case", CASES["decode"], ids=lambda c: str(c["ids"][:4]))
def test_decode_matches_the_reference_with_and_without_special_tokens(tokenizer, case):
    assert tokenizer.decode(case["ids"]) == case["skip_special"]
    assert tokenizer.decode(case["ids"], skip_special_tokens=False) == case["keep_special"]


@pytest.mark.parametrize("case", CASES["encode"], ids=lambda c: repr(c["text"])[:40])
def test_decoding_the_ids_of_a_text_gives_back_its_nfc_form(tokenizer, case):
    text = unicodedata.normalize("NFC", case["text"])
    assert tokenizer.decode(case["ids"], skip_special_tokens=False) == text


def test_skipping_special_tokens_keeps_the_asr_text_tag(tokenizer):
    ids = tokenizer.encode("<|im_start|>language English<asr_text>Hi.<|im_end|><|endoftext|>")
    assert tokenizer.decode(ids) == "language English<asr_text>Hi."


def test_audio_and_end_of_text_ids_are_those_of_the_checkpoint(tokenizer):
    assert (tokenizer.audio_start_id, tokenizer.audio_pad_id, tokenizer.audio_end_id) == (
        151669,
        151676,
        151670,
    )
    assert tokenizer.eos_token_ids == EOS_TOKEN_IDS == (151643, 151645)
    assert tokenizer.token_to_id("<asr_text>") == 151704


def test_an_unknown_token_raises_key_error_naming_it(tokenizer):
    with pytest.raises(KeyError, match="<nope>"):
        tokenizer.token_to_id("<nope>")


def test_a_folder_without_tokenizer_files_is_refused_with_the_missing_names(tmp_path):
    shutil.copy(CHECKPOINT / "vocab.json", tmp_path / "vocab.json")
    with pytest.raises(FileNotFoundError) as error:
        Tokenizer.from_dir(tmp_path)
    message = str(error.value)
    assert message.startswith(f"{tmp_path} lacks merges.txt, tokenizer_config.json:")
    assert "Qwen3-ASR checkpoint" in message


@pytest.mark.parametrize("name", ["vocab.json", "merges.txt", "tokenizer_config.json"])
def test_a_cut_off_tokenizer_file_is_named_with_the_fix(tmp_path, name):
    shutil.copytree(CHECKPOINT, tmp_path / "m")
    broken = tmp_path / "m" / name
    broken.write_bytes(broken.read_bytes()[: broken.stat().st_size // 2])
    with pytest.raises(ValueError) as error:
        Tokenizer.from_dir(tmp_path / "m")
    message = str(error.value)
    assert message.startswith(f"{broken} is cut off or corrupt"), message
    assert message.endswith("download the model again (or restore the file)") and "\n" not in message, message


def test_a_folder_with_tokenizer_json_is_loaded_from_it(tmp_path):
    bpe = models.BPE(vocab={"a": 0, "b": 1, "ab": 2}, merges=[("a", "b")])
    BackendTokenizer(bpe).save(str(tmp_path / "tokenizer.json"))
    config = {"audio_token": "ab", "audio_bos_token": "a", "audio_eos_token": "b"}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config))
    loaded = Tokenizer.from_dir(tmp_path)
    assert loaded.encode("abab") == [2, 2]
    assert (loaded.audio_start_id, loaded.audio_pad_id, loaded.audio_end_id) == (0, 2, 1)


@pytest.mark.parametrize(
    "case",
    CASES["prompts"],
    ids=lambda c: f"{c['n_audio_tokens']}-{c['context']!r}-{c['language']}",
)
def test_build_prompt_gives_the_official_prompt_ids(tokenizer, case):
    options = DecodeOptions(language=case["language"], context=case["context"])  # as every caller does
    ids = build_prompt(tokenizer, case["n_audio_tokens"], options.context, options.language)
    assert ids == case["ids"]


def test_the_prompt_holds_the_audio_pads_between_start_and_end(tokenizer):
    ids = build_prompt(tokenizer, 5, language="English")
    start = ids.index(tokenizer.audio_start_id)
    assert ids[start + 1 : start + 6] == [tokenizer.audio_pad_id] * 5
    assert ids[start + 6] == tokenizer.audio_end_id
    assert tokenizer.decode(ids).endswith("assistant\nlanguage English<asr_text>")


def test_a_context_holding_the_audio_pad_token_is_refused(tokenizer):
    with pytest.raises(ValueError, match="audio_pad"):
        build_prompt(tokenizer, 3, context="oops <|audio_pad|>")


def test_an_unsupported_language_is_refused_with_the_supported_names(tokenizer):
    with pytest.raises(ValueError) as error:
        build_prompt(tokenizer, 3, language="Klingon")
    message = str(error.value)
    assert "Klingon" in message
    assert all(name in message for name in SUPPORTED_LANGUAGES)


def test_supported_languages_are_the_official_thirty_in_order():
    assert len(SUPPORTED_LANGUAGES) == 30
    assert SUPPORTED_LANGUAGES[:3] == ("Chinese", "English", "Cantonese")
    assert SUPPORTED_LANGUAGES[-1] == "Macedonian"


@pytest.mark.parametrize(
    ("given", "expected"),
    [(None, None), ("", None), ("  ", None), ("english", "English"), (" JAPANESE ", "Japanese")],
)
def test_language_names_are_matched_in_any_case(given, expected):
    assert normalize_language(given) == expected


@pytest.mark.parametrize("case", PARSE_CASES["cases"], ids=lambda c: repr(c["raw"])[:40])
def test_parse_output_matches_the_official_parser(case):
    got = parse_output(case["raw"], forced_language=case["forced_language"])
    assert got == (case["language"], case["text"])


@pytest.mark.parametrize(
    ("language", "spaced"),
    [("Chinese", False), ("japanese", False), ("Cantonese", False), ("Thai", False),
     ("English", True), ("Korean", True), ("", True), ("Zh-cn", True)],
)  # fmt: skip
def test_only_chinese_japanese_cantonese_and_thai_are_joined_without_spaces(language, spaced):
    assert is_space_delimited(language) is spaced


@pytest.mark.parametrize(
    ("given", "expected"),
    [("\u212aorean", None), ("eNGLISH", "English"), ("\u017fpanish", "Spanish"), ("Engli\u017fh", None)],
)
def test_unusual_case_forms_are_taken_or_refused_as_the_official_code_does(given, expected):
    # Official: s[:1].upper() + s[1:].lower(), then looked up. A Kelvin sign stays a Kelvin sign when
    # upper-cased (refused); a long s upper-cases to "S" (accepted first) but never lower-cases to "s".
    if expected is None:
        with pytest.raises(ValueError, match="Unsupported language"):
            normalize_language(given)
    else:
        assert normalize_language(given) == expected


def test_build_prompt_takes_language_names_in_any_case_and_their_codes(tokenizer):
    want = build_prompt(tokenizer, 3, language="English")
    for given in ("english", "ENGLISH", "en", "EN"):
        assert build_prompt(tokenizer, 3, language=given) == want, given
