"""Loading: every checkpoint layout gives the same model; bad checkpoints name what is wrong."""

import json
import os
import re
import shutil
import subprocess
import sys

import mlx.core as mx
import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.loading.convert import Recipe, convert
from mlx_qwen3asr.testing.random_checkpoint import tiny_config, write_random_checkpoint


def _outputs(model) -> tuple[np.ndarray, np.ndarray]:
    """Encoder output and last-position logits for a fixed input."""
    mel = mx.random.normal((250, 128), key=mx.random.key(0))
    features = model.encode(mel)
    ids = mx.array([151644, 8948, 198] + [model.args.audio_token_id] * features.shape[0] + [151645, 198])
    return np.array(features), np.array(model(model.embed(ids, features))[0, -1])


@pytest.fixture(scope="module")
def reference(tiny_model):
    return _outputs(tiny_model)


@pytest.mark.parametrize("layout, shard_bytes", [("official", 2_000_000), ("hf", None), ("hf", 3_000_000)])
def test_every_layout_and_sharding_loads_to_identical_outputs(tmp_path, reference, layout, shard_bytes):
    folder = write_random_checkpoint(tmp_path / "m", tiny_config(), seed=0, layout=layout, max_shard_bytes=shard_bytes)
    if shard_bytes:
        assert (folder / "model.safetensors.index.json").exists(), "expected a sharded checkpoint"
        assert len(list(folder.glob("model-*.safetensors"))) > 1, "expected several shards"
    outputs = _outputs(mq.load(folder, dtype="float32"))
    for got, want, what in zip(outputs, reference, ("encoder output", "logits")):
        np.testing.assert_array_equal(got, want, err_msg=f"{layout} layout changes the {what}")


def test_a_converted_mlx_folder_loads_to_identical_outputs(tmp_path, tiny_checkpoint, reference):
    folder = convert(tiny_checkpoint, tmp_path / "mlx", Recipe(bits=16, encoder_bits=16, dtype="float32")).folder
    reloaded = mq.load(folder, dtype="float32")
    for got, want in zip(_outputs(reloaded), reference):
        np.testing.assert_array_equal(got, want, err_msg="converted folder changes the outputs")


def test_dtype_is_selectable_and_float32_is_the_cpu_default(tiny_checkpoint):
    half = mq.load(tiny_checkpoint, dtype="bfloat16")
    assert half.dtype == mx.bfloat16 and half.model.embed_tokens.weight.dtype == mx.bfloat16
    if mx.default_device() == mx.cpu:
        assert mq.load(tiny_checkpoint).dtype == mx.float32, "CPU default must be float32"
    with pytest.raises(ValueError, match="float16, bfloat16, float32"):
        mq.load(tiny_checkpoint, dtype="int8")


def _edited_copy(tmp_path, source, edit) -> str:
    folder = tmp_path / "edited"
    shutil.copytree(source, folder)
    config = json.loads((folder / "config.json").read_text())
    edit(config["thinker_config"])
    (folder / "config.json").write_text(json.dumps(config))
    return folder


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c["audio_config"].update(encoder_layers=3), r"missing \(\d+\): audio_tower\.layers\.2\."),
        (lambda c: c["text_config"].update(num_hidden_layers=1), r"unexpected \(\d+\): model\.layers\.1\."),
        (
            lambda c: c["text_config"].update(intermediate_size=96),
            r"mis-shaped .*mlp\..*\(128, 64\) vs model \(96, 64\)",
        ),
    ],
)
def test_a_checkpoint_that_does_not_match_its_config_names_the_tensors(tmp_path, tiny_checkpoint, edit, message):
    with pytest.raises(ValueError, match=message):
        mq.load(_edited_copy(tmp_path, tiny_checkpoint, edit))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c["text_config"].pop("hidden_size"), r"thinker_config\.text_config\.hidden_size is missing"),
        (
            lambda c: c["audio_config"].update(encoder_layers="2"),
            r"thinker_config\.audio_config\.encoder_layers must be an integer, got '2'",
        ),
        (
            lambda c: c["text_config"].update(rms_norm_eps=[1e-6]),
            r"thinker_config\.text_config\.rms_norm_eps must be a number",
        ),
        (
            lambda c: c["text_config"].update(tie_word_embeddings=1),
            r"thinker_config\.text_config\.tie_word_embeddings must be true or false",
        ),
        (lambda c: c.update(audio_token_id="151676"), r"thinker_config\.audio_token_id must be an integer"),
    ],
)
def test_a_config_with_a_missing_key_or_a_wrong_type_names_file_key_and_fix(tmp_path, tiny_checkpoint, edit, message):
    folder = _edited_copy(tmp_path, tiny_checkpoint, edit)
    with pytest.raises(
        ValueError, match=f"^{re.escape(str(folder / 'config.json'))}: {message}.*download the model again"
    ):
        mq.load(folder)


def test_a_cut_off_config_is_named_with_the_fix(tmp_path, tiny_checkpoint):
    folder = tmp_path / "cut"
    shutil.copytree(tiny_checkpoint, folder)
    config = folder / "config.json"
    config.write_text(config.read_text()[:1000])
    with pytest.raises(ValueError, match=f"^{re.escape(str(config))} is cut off or corrupt .*download the model again"):
        mq.load(folder)


def test_broken_folders_give_errors_that_say_what_to_do(tmp_path, tiny_checkpoint):
    with pytest.raises(FileNotFoundError, match="No config.json"):
        mq.load(tmp_path)
    folder = tmp_path / "noweights"
    shutil.copytree(tiny_checkpoint, folder, ignore=shutil.ignore_patterns("*.safetensors"))
    with pytest.raises(FileNotFoundError, match="No \\*.safetensors .*convert"):
        mq.load(folder)
    with pytest.raises(FileNotFoundError, match="Model folder not found"):
        mq.load("./no/such/folder")


def test_a_truncated_safetensors_file_is_reported_as_corrupt(tmp_path, tiny_checkpoint):
    folder = tmp_path / "corrupt"
    shutil.copytree(tiny_checkpoint, folder)
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    with pytest.raises(
        ValueError, match=f"^{re.escape(str(weights))} is cut off or corrupt .*download the model again"
    ):
        mq.load(folder)


@pytest.mark.parametrize("kept", [0, 5, 8, 40])
def test_an_empty_or_cut_off_weights_file_is_one_line_saying_download_again(tmp_path, tiny_checkpoint, kept):
    folder = tmp_path / "cut"
    shutil.copytree(tiny_checkpoint, folder)
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:kept])  # 0 bytes: a download that never started
    with pytest.raises(ValueError) as raised:
        mq.load(folder)
    message = str(raised.value)
    assert message.startswith(f"{weights} is cut off or corrupt ("), message
    assert message.endswith(": download the model again (or restore the file)") and "\n" not in message, message


def test_a_missing_shard_is_named(tmp_path):
    folder = write_random_checkpoint(tmp_path / "m", tiny_config(), max_shard_bytes=2_000_000)
    victim = sorted(folder.glob("model-*.safetensors"))[-1]
    victim.unlink()
    with pytest.raises(FileNotFoundError, match=f"missing: {victim.name}"):
        mq.load(folder)


def _load_in_subprocess(repo_id: str, env: dict) -> subprocess.CompletedProcess:
    code = f"import mlx_qwen3asr as mq; m = mq.load({repo_id!r}); print(m.path)"
    return subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True)


def test_a_hub_id_loads_from_the_hugging_face_cache_offline(tmp_path, tiny_checkpoint):
    snapshot = tmp_path / "hub" / "models--Qwen--Qwen3-ASR-Tiny" / "snapshots" / ("0" * 40)
    shutil.copytree(tiny_checkpoint, snapshot)
    (snapshot.parents[1] / "refs").mkdir()
    (snapshot.parents[1] / "refs" / "main").write_text("0" * 40)
    run = _load_in_subprocess("Qwen/Qwen3-ASR-Tiny", {"HF_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"})
    assert run.returncode == 0 and run.stdout.strip() == str(snapshot), run.stderr


def test_an_uncached_hub_id_offline_says_how_to_use_a_local_folder(tmp_path):
    run = _load_in_subprocess("Qwen/Qwen3-ASR-0.6B", {"HF_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"})
    assert run.returncode != 0, "loading an uncached model offline must fail"
    assert "HF_HUB_OFFLINE is set" in run.stderr and "local folder" in run.stderr, run.stderr[-800:]
    assert "hf download Qwen/Qwen3-ASR-0.6B --local-dir" in run.stderr, "the command current huggingface_hub installs"
    assert "huggingface-cli" not in run.stderr, "huggingface_hub 1.x no longer installs huggingface-cli"


def test_a_quantized_folder_whose_packed_weights_were_saved_as_floats_is_refused_at_load(tmp_path, tiny_checkpoint):
    folder = convert(tiny_checkpoint, tmp_path / "q8", Recipe(bits=8, encoder_bits=8)).folder
    weights = mx.load(str(folder / "model.safetensors"))
    name = "model.layers.0.mlp.down_proj.weight"
    assert weights[name].dtype == mx.uint32, "the converter packs quantized weights into uint32"
    weights[name] = weights[name].astype(mx.float32)  # what a tool that casts every tensor does
    mx.save_safetensors(str(folder / "model.safetensors"), weights, metadata={"format": "mlx"})
    with pytest.raises(
        ValueError, match=rf"mis-typed \(1\): {re.escape(name)}: checkpoint mlx.core.float32 vs model mlx.core.uint32"
    ):
        mq.load(folder)
