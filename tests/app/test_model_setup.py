"""Start-up model handling: a folder is used as is; a hub model is converted once and reused."""

import json
import shutil

import mlx.core as mx
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr_app.errors import AppError
from mlx_qwen3asr_app.model_setup import converted_folder, converted_model, load_model


def test_a_model_is_converted_once_and_the_conversion_is_reused(tiny_checkpoint, tmp_path):
    said: list[str] = []
    target = tmp_path / "converted"
    assert converted_model(str(tiny_checkpoint), target, said.append) == target
    config = json.loads((target / "config.json").read_text())
    assert config.get("quantization"), "the converted folder records its quantization"
    assert len(said) == 1 and "converting" in said[0], f"the user is told once: {said}"
    stamp = (target / "config.json").stat().st_mtime_ns
    assert converted_model(str(tiny_checkpoint), target, said.append) == target
    assert len(said) == 1 and (target / "config.json").stat().st_mtime_ns == stamp, "not converted again"
    assert isinstance(mq.load(target), mq.Qwen3ASR), "the conversion loads"


def test_converted_models_are_cached_per_hub_id(tmp_path):
    assert converted_folder("Qwen/Qwen3-ASR-0.6B", tmp_path) == tmp_path / "Qwen--Qwen3-ASR-0.6B-4bit-enc8"


def test_a_cut_off_merges_file_is_one_clear_error_that_says_cannot_load_once(tiny_checkpoint, tmp_path):
    shutil.copytree(tiny_checkpoint, tmp_path / "m")
    merges = tmp_path / "m" / "merges.txt"
    merges.write_bytes(merges.read_bytes()[: merges.stat().st_size // 2])
    with pytest.raises(AppError) as error:
        load_model(str(tmp_path / "m"), None, lambda _: None)
    message = str(error.value)
    assert message.startswith(f"Cannot load model {str(tmp_path / 'm')!r}: {merges} is cut off or corrupt"), message
    assert message.lower().count("cannot load") == 1, message


def test_a_missing_model_folder_is_a_clear_error(tmp_path):
    with pytest.raises(AppError, match="Cannot load model.*config.json"):
        load_model(str(tmp_path), None, lambda _: None)


def test_loading_a_quantized_model_on_the_cpu_backend_says_it_is_slow_there(tiny_checkpoint, tmp_path):
    said: list[str] = []
    folder = converted_model(str(tiny_checkpoint), tmp_path / "q", lambda _: None)
    load_model(str(folder), None, said.append)
    on_cpu = mx.default_device() == mx.cpu
    assert any("about 10x slower than float32 on MLX's CPU backend" in s for s in said) == on_cpu, said
    said.clear()
    load_model(str(tiny_checkpoint), None, said.append)
    assert not any("slower" in s for s in said), f"a float model runs at full speed: {said}"
