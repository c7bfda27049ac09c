"""The registry and the protocol: a folder's files name its family; shared code asks the model and never
names a family."""

import ast
import importlib
from pathlib import Path

import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.registry import FAMILIES, family_module, folder_kind, model_type, self_loading
from mlx_qwen3asr.families.speech_lm import SpeechLM
from mlx_qwen3asr.testing.random_diarizer import write_random_diarizer

PACKAGE = Path(mq.__file__).resolve().parent
FAMILY_FOLDERS = ("families", "testing")  # the families' wing, and the test checkpoints
FAMILY_CLASSES = {"Qwen3ASR", "FunAsrNano", "ForcedAligner", "Diarizer", "SileroVad"}
# the families whose release is a config.json with safetensors (the rest load their own layout: load_folder)
CONFIG_KINDS = [kind for kind in FAMILIES if not hasattr(importlib.import_module(FAMILIES[kind]), "load_folder")]


def test_config_json_names_the_family():
    assert model_type({"model_type": "fun_asr_nano"}) == "fun_asr_nano"
    assert model_type({"model_type": "qwen3_asr", "thinker_config": {"model_type": "qwen3_forced_aligner"}}) == (
        "qwen3_forced_aligner"
    ), "the aligner's official layout names it inside thinker_config"
    assert model_type({}) == "qwen3_asr", "early conversions wrote no model_type"
    assert {family_module({"model_type": kind}).Model.__name__ for kind in CONFIG_KINDS} == {
        "Qwen3ASR",
        "FunAsrNano",
        "ForcedAligner",
    }


def test_a_folder_is_read_by_its_files(tiny_checkpoint, tiny_aligner_dir, tmp_path):
    assert folder_kind(tiny_checkpoint) == "qwen3_asr"
    assert folder_kind(tiny_aligner_dir) == "qwen3_forced_aligner"
    assert folder_kind(tmp_path) is None


def test_the_diarizers_release_is_told_apart_by_its_config_yaml_and_loads_by_one_registry_line(tmp_path):
    folder = write_random_diarizer(tmp_path / "community-1", seed=0)
    assert folder_kind(folder) == "pyannote_speaker_diarization"
    assert self_loading(folder) is not None and type(mq.load(folder)).__name__ == "Diarizer"
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "config.yaml").write_text("pipeline: {name: someone.else}\n")
    assert folder_kind(tmp_path / "other") is None, "a config.yaml of another pipeline names no family"


def test_an_unknown_model_type_is_one_line_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"^config.json has model_type 'whisper': this package reads 'qwen3_asr'"):
        family_module({"model_type": "whisper"})


def test_every_family_is_a_sibling_on_the_shared_base_not_a_subclass_of_another():
    for kind in CONFIG_KINDS:
        model = family_module({"model_type": kind}).Model
        assert model.__mro__[1] is SpeechLM, f"{model.__name__} subclasses {model.__mro__[1].__name__}, not SpeechLM"


def test_recognisers_state_what_the_engine_asks(tiny_model):
    assert tiny_model.task == "transcribe" and tiny_model.languages.names == mq.SUPPORTED_LANGUAGES
    assert tiny_model.audio_tokens_per_second == 13 and tiny_model.chunk_seconds == 30.0
    assert tiny_model.parse_output("language English<asr_text>Hi.") == ("English", "Hi.")


def test_shared_code_names_no_family_and_tests_none_by_isinstance():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in FAMILY_FOLDERS or relative.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and {a.name for a in node.names} & FAMILY_CLASSES:
                offenders.append(f"{relative}: imports {[a.name for a in node.names]}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance":
                named = {getattr(n, "attr", getattr(n, "id", "")) for n in ast.walk(node.args[1])}
                if named & FAMILY_CLASSES:
                    offenders.append(f"{relative}:{node.lineno}: isinstance on a family")
    assert not offenders, offenders


def test_a_model_type_outside_the_registry_is_not_taken_for_qwen3_asr():
    official = {"model_type": "whisper", "thinker_config": {"model_type": "qwen3_asr"}}
    assert model_type(official) == "whisper", "the top level names the family"
