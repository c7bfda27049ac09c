"""Aligner text -> units against the official Qwen3ForceAlignProcessor.encode_timestamp.

Fixture: tests/fixtures/aligner/units_cases.json (scripts/make_aligner_goldens.py, qwen-asr 0.0.6 with
nagisa 0.2.11 and soynlp 0.0.493): English, Chinese, Cantonese, mixed scripts, punctuation inside
words, numbers, apostrophes, hyphens, emoji, full-width characters, ten other languages, Korean and
Japanese, with the language name in several spellings.
"""

import json
import sys
from pathlib import Path

import pytest

from mlx_qwen3asr.families.aligner.units import split_units

GOLDEN_FILE = Path(__file__).parents[2] / "fixtures/aligner/units_cases.json"
CASES = json.loads(GOLDEN_FILE.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['language']}:{c['text'][:24]!r}")
def test_units_are_the_official_ones(case):
    assert split_units(case["text"], case["language"]) == case["units"]


def test_the_golden_cases_cover_every_rule():
    languages = {case["language"].lower() for case in CASES}
    assert {"english", "chinese", "korean", "japanese", ""} <= languages
    assert len(CASES) >= 300
    assert any(case["units"] == [] for case in CASES), "texts with nothing to align are covered"


def test_japanese_without_nagisa_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "nagisa", None)  # makes `import nagisa` raise ImportError
    with pytest.raises(ImportError, match=r"pip install 'mlx-qwen3asr\[ja\]'"):
        split_units("東京都に住んでいます。", "Japanese")


def test_korean_needs_no_extra_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "soynlp", None)
    expected = ["안녕", "하세요", "저는", "학생", "입니다"]
    assert split_units("안녕하세요 저는 학생입니다.", "Korean") == expected


def test_no_language_splits_on_whitespace_like_any_other_language():
    assert (
        split_units("Hello, 世界! e-mail", None)
        == split_units("Hello, 世界! e-mail", "English")
        == ["Hello", "世", "界", "email"]
    )
