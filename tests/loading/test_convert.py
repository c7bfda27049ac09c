"""Converter: quantized folders load, keep the float model's tokens, and failures leave nothing behind."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest
from mlx.utils import tree_flatten

import mlx_qwen3asr as mq
from mlx_qwen3asr.cli.convert import main
from mlx_qwen3asr.loading.convert import Recipe, convert
from mlx_qwen3asr.loading.convert.fidelity import Fidelity, compare, trace
from mlx_qwen3asr.loading.load import load_weights
from mlx_qwen3asr.testing.random_checkpoint import tiny_config, write_random_checkpoint

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = ROOT / "tests/fixtures/goldens"
N_TOKENS = 16
# A step is a near-tie when the float model's top-1 minus top-2 logit is below this fraction of its
# logit standard deviation (~34 on the tiny model, so ~1 logit); 8-bit moves logits by up to ~3.5.
NEAR_TIE = 0.03


def golden_audio(name: str) -> np.ndarray:
    return np.load(GOLDENS / f"tiny_{name}.npz")["audio"]


@pytest.fixture(scope="module")
def references(tiny_model) -> dict:
    """Float32 traces on the golden inputs; their greedy tokens are the official ones."""
    traces = {name: trace(tiny_model, golden_audio(name), N_TOKENS) for name in ("short", "exact")}
    for name, got in traces.items():
        official = np.load(GOLDENS / f"tiny_{name}.npz")["plain_tokens"][:N_TOKENS].tolist()
        assert got.tokens == official, f"float reference on {name} differs from the official tokens"
    return traces


@pytest.fixture(scope="module")
def converted(tmp_path_factory, tiny_checkpoint) -> dict:
    """Recipe name -> ConversionResult: all 8-bit, and the default (4-bit decoder, 8-bit encoder)."""
    root = tmp_path_factory.mktemp("converted")
    recipes = {"8-bit": Recipe(bits=8, encoder_bits=8), "4-bit + 8-bit encoder": Recipe(), "float16": Recipe(16, 16)}
    return {name: convert(tiny_checkpoint, root / name, recipe) for name, recipe in recipes.items()}


def fidelity_on_goldens(folder: Path, references: dict) -> dict[str, Fidelity]:
    model = mq.load(folder, dtype="float32")
    return {
        name: compare(ref, trace(model, golden_audio(name), N_TOKENS, teacher=ref.tokens))
        for name, ref in references.items()
    }


def report(recipe: str, name: str, fidelity: Fidelity) -> None:
    where = (
        "none"
        if fidelity.first_divergence is None
        else (f"{fidelity.first_divergence} (float margin {fidelity.margin_at_divergence:.2f})")
    )
    print(
        f"\n{recipe} on {name}: {fidelity.agreeing_tokens}/{N_TOKENS} greedy tokens agree, first divergence "
        f"{where}, last-position logit cosine {fidelity.logits_cosine:.6f}"
    )


def test_8bit_keeps_the_logits_and_agrees_with_float_up_to_the_first_near_tie(converted, references):
    for name, fidelity in fidelity_on_goldens(converted["8-bit"].folder, references).items():
        report("8-bit", name, fidelity)
        assert fidelity.logits_cosine >= 0.999, f"8-bit on {name}: cosine {fidelity.logits_cosine:.6f}"
        tie = NEAR_TIE * references[name].logits.std()
        assert fidelity.first_divergence is None or fidelity.margin_at_divergence < tie, (
            f"8-bit on {name} diverges at token {fidelity.first_divergence}, where float's top-2 margin "
            f"{fidelity.margin_at_divergence:.3f} is no near-tie (< {tie:.3f})"
        )


def test_the_default_recipe_stays_close_to_float(converted, references):
    """4-bit decoder + 8-bit encoder: reported; the tiny model (rows of 64) is far more sensitive than real ones."""
    for name, fidelity in fidelity_on_goldens(converted["4-bit + 8-bit encoder"].folder, references).items():
        report("4-bit + 8-bit encoder", name, fidelity)
        assert fidelity.logits_cosine >= 0.95, f"default recipe on {name}: cosine {fidelity.logits_cosine:.6f}"


def test_the_quantization_entry_matches_the_stored_tensors(converted, tiny_model):
    folder = converted["4-bit + 8-bit encoder"].folder
    entry = json.loads((folder / "config.json").read_text())["quantization"]
    stored = load_weights(folder)
    float_shapes = dict(tree_flatten(tiny_model.parameters()))
    assert "lm_head.weight" not in stored and "thinker.lm_head.weight" not in stored, "tied head stored twice"
    for path, module in tiny_model.named_modules():
        if not hasattr(module, "to_quantized"):
            continue
        params = entry.get(path, {k: entry[k] for k in ("group_size", "bits", "mode")})
        stem = path.startswith("audio_tower.conv")
        expected_bits = None if stem else 8 if path.startswith("audio_tower.") else 4
        assert (params or {}).get("bits") == expected_bits, f"{path}: config says {params}"
        n_in = float_shapes[f"{path}.weight"].shape[-1]
        if not params:
            assert f"{path}.scales" not in stored and stored[f"{path}.weight"].dtype == mx.float16, path
            continue
        weight, scales = stored[f"{path}.weight"], stored[f"{path}.scales"]
        assert weight.dtype == mx.uint32 and weight.shape[-1] * 32 // params["bits"] == n_in, f"{path}: bits"
        assert scales.shape[-1] == n_in // params["group_size"], f"{path}: group size"
    model = mq.load(folder)
    assert isinstance(model.model.embed_tokens, nn.QuantizedEmbedding) and not hasattr(model, "lm_head")
    assert isinstance(model.audio_tower.layers[0].fc1, nn.QuantizedLinear) and model.audio_tower.layers[0].fc1.bits == 8
    up_proj = model.model.layers[0].mlp.up_proj
    assert isinstance(up_proj, nn.QuantizedLinear) and up_proj.bits == 4, "decoder layers must be 4-bit"
    assert isinstance(model.audio_tower.conv_out, nn.Linear), "the conv stem must stay float"


def test_the_loader_follows_the_config_and_never_guesses_bits_from_shapes(converted, tmp_path):
    folder = tmp_path / "edited"
    shutil.copytree(converted["4-bit + 8-bit encoder"].folder, folder)
    config = json.loads((folder / "config.json").read_text())
    config["quantization"]["audio_tower.layers.0.fc1"]["bits"] = 4  # the stored tensors are 8-bit
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"mis-shaped.*audio_tower\.layers\.0\.fc1\.weight"):
        mq.load(folder)


def test_sizes_shrink_as_the_recipe_says(converted, tiny_model):
    """Quantized weights cost bits/8 bytes each plus a float16 scale and bias per group of 64."""
    params = dict(tree_flatten(tiny_model.parameters()))
    quantizable = {k: v.size for k, v in params.items() if k.endswith(".weight") and v.ndim == 2}
    quantizable = {k: n for k, n in quantizable.items() if not k.startswith("audio_tower.conv")}
    encoder = sum(n for k, n in quantizable.items() if k.startswith("audio_tower."))
    decoder = sum(quantizable.values()) - encoder
    rest = 2 * sum(v.size for v in params.values()) - 2 * (encoder + decoder)
    cost = lambda n, bits: n * bits // 8 + 2 * 2 * n // 64  # noqa: E731
    expected = {
        "float16": 2 * sum(v.size for v in params.values()),
        "8-bit": rest + cost(encoder, 8) + cost(decoder, 8),
        "4-bit + 8-bit encoder": rest + cost(encoder, 8) + cost(decoder, 4),
    }
    for name, size in expected.items():
        result = converted[name]
        on_disk = (result.folder / "model.safetensors").stat().st_size
        assert result.output_bytes == size, f"{name}: {result.output_bytes} bytes of tensors, expected {size}"
        assert size < on_disk < size + 100_000, f"{name}: file {on_disk} bytes for {size} bytes of tensors"
    assert expected["4-bit + 8-bit encoder"] < 0.6 * expected["8-bit"] < 0.6 * expected["float16"]


def test_a_float_conversion_loads_to_identical_outputs(converted, references, tiny_checkpoint, tmp_path):
    float32 = Recipe(bits=16, encoder_bits=16, dtype="float32")
    folder = convert(tiny_checkpoint, tmp_path / "f32", float32, max_shard_bytes=4_000_000).folder
    assert (folder / "model.safetensors.index.json").exists() and len(list(folder.glob("model-*"))) > 1
    assert set(load_weights(folder)) == set(load_weights(converted["float16"].folder)), "sharding changed the names"
    got = trace(mq.load(folder, dtype="float32"), golden_audio("short"), N_TOKENS)
    np.testing.assert_array_equal(got.logits, references["short"].logits, err_msg="float conversion changed logits")


def test_the_hf_layout_converts_to_the_same_tensors(converted, tmp_path):
    hf_source = write_random_checkpoint(tmp_path / "hf", tiny_config(), seed=0, layout="hf")
    got = load_weights(convert(hf_source, tmp_path / "out", Recipe(bits=8, encoder_bits=8)).folder)
    want = load_weights(converted["8-bit"].folder)
    assert set(got) == set(want), f"names differ: {sorted(set(got) ^ set(want))[:5]}"
    for name, value in want.items():
        assert mx.array_equal(got[name], value).item(), f"{name} differs between the two layouts"


def test_a_failure_mid_write_leaves_no_output_folder(tiny_checkpoint, tmp_path, monkeypatch):
    real_save, calls = mx.save_safetensors, []

    def disk_full_on_second_shard(path, arrays, metadata=None):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_save(path, arrays, metadata=metadata)

    monkeypatch.setattr(mx, "save_safetensors", disk_full_on_second_shard)
    with pytest.raises(OSError, match="No space left"):
        convert(tiny_checkpoint, tmp_path / "out", max_shard_bytes=1_000_000)
    assert len(calls) == 2, "the failure should come after one shard was written"
    assert list(tmp_path.iterdir()) == [], "a failed conversion left files behind"
    previous = convert(tiny_checkpoint, tmp_path / "out", Recipe(8, 8)).folder
    before = {p.name: p.stat().st_size for p in previous.iterdir()}
    calls.clear()
    with pytest.raises(OSError, match="No space left"):
        convert(tiny_checkpoint, tmp_path / "out", force=True, max_shard_bytes=1_000_000)
    assert {p.name: p.stat().st_size for p in previous.iterdir()} == before, "--force lost the old output"
    assert [p.name for p in tmp_path.iterdir()] == ["out"], "a failed conversion left files behind"


def test_an_existing_output_is_replaced_only_with_force(tiny_checkpoint, tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="already exists: pass --force"):
        convert(tiny_checkpoint, tmp_path / "out")
    assert (tmp_path / "out" / "keep.txt").exists()
    convert(tiny_checkpoint, tmp_path / "out", Recipe(8, 8), force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert not (tmp_path / "out" / "keep.txt").exists() and (tmp_path / "out" / "model.safetensors").exists()


def _broken_source(tmp_path: Path, checkpoint: Path, breakage: str) -> Path:
    folder = tmp_path / "src"
    shutil.copytree(checkpoint, folder)
    config = json.loads((folder / "config.json").read_text())
    if breakage == "whisper":
        config["model_type"] = "whisper"
    if breakage == "quantized":
        config["quantization"] = {"group_size": 64, "bits": 4}
    if breakage == "no audio config":
        del config["thinker_config"]["audio_config"]
    (folder / "config.json").write_text(json.dumps(config))
    if breakage == "truncated":
        weights = folder / "model.safetensors"
        weights.write_bytes(weights.read_bytes()[:100_000])
    if breakage == "no config":
        (folder / "config.json").unlink()
    return folder


@pytest.mark.parametrize(
    "breakage, error, message",
    [
        ("whisper", ValueError, "model_type 'whisper'.*Qwen3-ASR"),
        ("quantized", ValueError, "already quantized: convert from the original"),
        ("no audio config", ValueError, "no audio_config/text_config"),
        ("truncated", ValueError, "model.safetensors is cut off or corrupt .*download the model again"),
        ("no config", FileNotFoundError, "No config.json"),
    ],
)
def test_a_bad_source_gives_an_error_that_says_what_to_do(tiny_checkpoint, tmp_path, breakage, error, message):
    with pytest.raises(error, match=message):
        convert(_broken_source(tmp_path, tiny_checkpoint, breakage), tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "recipe, message",
    [
        (Recipe(bits=3), "bits=3 is not supported: use 4 or 8"),
        (Recipe(group_size=16), "group_size=16 is not supported: use 32, 64 or 128"),
        (Recipe(dtype="int8"), "dtype 'int8' is not supported"),
        (Recipe(encoder_bits=4), "4-bit audio encoder can collapse.*--allow-4bit-encoder"),
    ],
)
def test_an_unsupported_recipe_is_refused_before_reading_anything(tmp_path, recipe, message):
    with pytest.raises(ValueError, match=message):
        convert(tmp_path / "does-not-exist", tmp_path / "out", recipe)


def test_the_command_line_converts_and_reports_fidelity(tiny_checkpoint, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["--model", str(tiny_checkpoint), "-o", str(out), "--bits", "8", "--fidelity-tokens", "8"]
    assert main(argv) == 0
    printed = capsys.readouterr()
    assert "8/8 agree with the float source; first divergence: none" in printed.out, printed.out
    assert "size " in printed.out and "0.27x the source" in printed.out and "peak memory" in printed.out, printed.out
    assert "write" in printed.err and "10.6/10.6 MB" in printed.err, printed.err
    assert main(argv) == 1 and "already exists: pass --force" in capsys.readouterr().err
    assert main([*argv, "--force", "--encoder-bits", "4"]) == 1, "a 4-bit encoder needs its flag"
    assert "--allow-4bit-encoder" in capsys.readouterr().err


def test_the_script_and_the_library_import_cleanly(tmp_path):
    script = [sys.executable, str(ROOT / "scripts/convert.py")]
    missing = [*script, "--model", str(tmp_path / "nope"), "-o", str(tmp_path / "o")]
    run = subprocess.run(missing, capture_output=True, text=True)
    assert run.returncode == 1 and "Model folder not found" in run.stderr, run.stderr
    run = subprocess.run([*script, "-o", "x", "--bits", "3"], capture_output=True, text=True)
    assert run.returncode == 2 and "invalid choice: 3" in run.stderr, run.stderr
    code = "import sys, mlx_qwen3asr, mlx_qwen3asr.loading.convert, mlx_qwen3asr.loading.convert.fidelity; print('rich' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stdout.strip() == "False", f"the library imports rich: {run.stdout} {run.stderr}"
