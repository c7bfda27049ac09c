"""The command line, run for real in a subprocess on the tiny checkpoint."""

import json
import os
import shutil
import subprocess
import sys
import wave

import mlx.core as mx
import numpy as np
import pytest
from terminal import stderr_on_a_terminal

import mlx_qwen3asr as mq
from mlx_qwen3asr.loading.convert import Recipe, convert


def _write_wav(path, samples: np.ndarray, rate: int = 16000) -> None:
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(np.round(samples * 32767).astype("<i2").tobytes())


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "clip.wav"
    _write_wav(path, np.random.default_rng(0).standard_normal(24000).astype(np.float32) * 0.1)
    return path


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mlx_qwen3asr", *map(str, args)], capture_output=True, text=True)


def test_cli_prints_the_same_text_as_the_library_and_writes_json(tmp_path, clip, tiny_checkpoint, tiny_model):
    expected = mq.transcribe(clip, tiny_model, max_new_tokens=5)
    run = _cli(clip, "--model", tiny_checkpoint, "--max-new-tokens", 5, "-f", "json", "-o", tmp_path)
    assert run.returncode == 0, run.stderr
    written = json.loads((tmp_path / "clip.json").read_text())
    assert json.loads(run.stdout) == written, "stdout and the written file must agree"
    assert written["text"] == expected.text and written["segments"][0]["end"] == pytest.approx(1.5)


def test_each_transcript_ends_with_exactly_one_newline_on_stdout_and_on_disk(
    tmp_path, clip, tiny_checkpoint, tiny_model
):
    expected = mq.transcribe(clip, tiny_model, max_new_tokens=5).text.strip()
    run = _cli(clip, "--model", tiny_checkpoint, "--max-new-tokens", 5, "-o", tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == expected + "\n", f"no blank line after the transcript: {run.stdout!r}"
    assert (tmp_path / "clip.txt").read_text() == expected + "\n"
    two = _cli(clip, clip, "--model", tiny_checkpoint, "--max-new-tokens", 5)
    assert two.stdout == f"==> {clip} <==\n{expected}\n" * 2, two.stdout


def test_cli_writes_subtitles_with_the_segment_times(tmp_path, clip, tiny_checkpoint):
    run = _cli(clip, "--model", tiny_checkpoint, "--max-new-tokens", 5, "-f", "srt", "-o", tmp_path)
    assert run.returncode == 0, run.stderr
    srt = (tmp_path / "clip.srt").read_text()
    if srt.strip():  # random weights may decode to an empty text
        assert srt.startswith("1\n00:00:00,000 --> 00:00:01,500\n"), srt


def test_cli_errors_name_the_cause(tmp_path, clip, tiny_checkpoint):
    missing = _cli(tmp_path / "nope.wav", "--model", tiny_checkpoint)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    folder = _cli(tmp_path, "--model", tiny_checkpoint)
    assert folder.returncode == 2 and f"{tmp_path} is a folder, not an audio file" in folder.stderr, folder.stderr
    language = _cli(clip, "--model", tiny_checkpoint, "--language", "Elvish")
    assert language.returncode == 2 and "Elvish" in language.stderr and "English" in language.stderr
    model = _cli(clip, "--model", tmp_path)
    assert model.returncode == 1 and "No config.json" in model.stderr


@pytest.mark.parametrize("tokens", ["0", "-3"])
def test_a_token_budget_below_one_is_refused_in_one_line(clip, tiny_checkpoint, tokens):
    run = _cli(clip, "--model", tiny_checkpoint, "--max-new-tokens", tokens)
    assert run.returncode == 2 and "max_new_tokens must be a positive integer" in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_serve_is_a_subcommand_of_the_command_line():
    run = _cli("serve", "--help")
    assert run.returncode == 0 and "mlx-qwen3asr serve" in run.stdout and "--api-key" in run.stdout, run.stderr
    refused = _cli("serve", "--host", "0.0.0.0", "--model", "/nonexistent")
    assert refused.returncode == 2 and "--api-key" in refused.stderr, refused.stderr


def test_a_cut_off_vocabulary_is_one_line_naming_the_file(tmp_path, clip, tiny_checkpoint):
    shutil.copytree(tiny_checkpoint, tmp_path / "m")
    vocab = tmp_path / "m" / "vocab.json"
    vocab.write_bytes(vocab.read_bytes()[:100_000])
    run = _cli(clip, "--model", tmp_path / "m")
    assert run.returncode == 1, run.stderr
    assert (
        run.stderr == f"error: cannot load model: {vocab} is cut off or corrupt " + run.stderr.split(" corrupt ", 1)[1]
    )
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr


def test_several_files_decoded_together_print_each_files_own_transcript(tmp_path, tiny_checkpoint, tiny_model):
    rng = np.random.default_rng(1)
    files = [tmp_path / "a.wav", tmp_path / "b.wav"]
    waves = [rng.standard_normal(int(s * 16000)).astype(np.float32) * 0.1 for s in (62.0, 2.0)]
    for path, samples in zip(files, waves):
        _write_wav(path, samples)
    run = _cli(*files, "--model", tiny_checkpoint, "--max-new-tokens", 4, "--batch-size", 3)
    assert run.returncode == 0, run.stderr
    assert run.stderr == "", "no progress bar when stderr is not a terminal"
    expected = "".join(f"==> {path} <==\n{mq.transcribe(path, tiny_model, max_new_tokens=4).text}\n" for path in files)
    assert run.stdout == expected


def test_long_work_shows_a_progress_bar_in_seconds_of_audio_on_a_terminal(tmp_path, tiny_checkpoint):
    path = tmp_path / "long.wav"
    _write_wav(path, np.random.default_rng(2).standard_normal(65 * 16000).astype(np.float32) * 0.1)
    command = [
        sys.executable,
        "-m",
        "mlx_qwen3asr",
        str(path),
        "--model",
        str(tiny_checkpoint),
        "--max-new-tokens",
        "2",
    ]
    run, screen = stderr_on_a_terminal(command)
    assert run.returncode == 0
    assert b"65/65 s of audio" in screen and b"ETA" in screen, screen[-500:]


def test_cli_with_an_aligner_writes_the_librarys_words_and_one_cue_per_word(
    tmp_path, clip, tiny_checkpoint, tiny_model, tiny_aligner_dir, tiny_aligner
):
    expected = mq.transcribe(clip, tiny_model, max_new_tokens=8, aligner=tiny_aligner)
    words = [[w.text, w.start, w.end] for w in expected.segments[0].words]
    assert words, "the tiny model's 8 tokens give some units"
    common = (clip, "--model", tiny_checkpoint, "--max-new-tokens", 8, "--aligner", tiny_aligner_dir)
    run = _cli(*common, "-f", "json")
    assert run.returncode == 0, run.stderr
    written = json.loads(run.stdout)["segments"][0]["words"]
    assert [[w["text"], w["start"], w["end"]] for w in written] == words
    srt = _cli(*common, "-f", "srt", "--timestamps", "word")
    assert srt.returncode == 0 and srt.stdout.count(" --> ") == len(words), srt.stdout + srt.stderr


def test_cli_word_timestamps_need_an_aligner_and_an_asr_model_is_not_one(clip, tiny_checkpoint):
    run = _cli(clip, "--model", tiny_checkpoint, "-f", "srt", "--timestamps", "word")
    assert run.returncode == 2 and "--timestamps word needs --aligner" in run.stderr, run.stderr
    wrong = _cli(clip, "--model", tiny_checkpoint, "--aligner", tiny_checkpoint)
    assert wrong.returncode == 1 and wrong.stderr.count("\n") == 1, wrong.stderr
    assert f"--aligner {tiny_checkpoint} is a speech recogniser" in wrong.stderr, wrong.stderr


def test_cli_refuses_an_aligner_folder_as_the_model_in_one_line(clip, tiny_aligner_dir):
    run = _cli(clip, "--model", tiny_aligner_dir)
    assert run.returncode == 1 and run.stderr.count("\n") == 1 and run.stdout == "", run.stderr
    assert f"--model {tiny_aligner_dir} is a forced aligner, not a speech recogniser" in run.stderr, run.stderr
    assert "--aligner" in run.stderr, "it says where an aligner goes"


def test_a_cut_off_weights_file_in_the_hub_cache_says_how_to_download_it_again(tmp_path, clip, tiny_checkpoint):
    repo = tmp_path / "hf" / "hub" / "models--Qwen--Qwen3-ASR-0.6B"
    revision = "0" * 40
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision)
    snapshot = repo / "snapshots" / revision
    shutil.copytree(tiny_checkpoint, snapshot)
    weights = snapshot / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])  # the download was interrupted
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mlx_qwen3asr", str(clip), "--model", "Qwen/Qwen3-ASR-0.6B"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 1, run.stderr
    assert run.stderr.startswith(f"error: cannot load model: {weights} is cut off or corrupt ("), run.stderr
    assert run.stderr.endswith(
        f": download the model again (hf download Qwen/Qwen3-ASR-0.6B --force-download, or delete {repo})\n"
    ), run.stderr
    assert run.stderr.count("\n") == 1, run.stderr


@pytest.mark.parametrize("to_folder", [False, True], ids=["printed", "written with -o"])
def test_a_file_that_fails_while_decoding_is_one_line_and_the_other_files_are_still_written(
    tmp_path, clip, tiny_checkpoint, tiny_aligner_dir, to_folder
):
    """Japanese words need the nagisa segmenter (the `ja` extra); here it is not installed. The speech
    file fails in the aligner, inside the call that decodes all files together; the silent file,
    which has no words to time, must still be printed (and with -o written; the failure is recorded in
    failures.jsonl and the run's summary line follows)."""
    silent = tmp_path / "silent.wav"
    _write_wav(silent, np.zeros(16000, dtype=np.float32))
    without_nagisa = (
        "import sys; sys.modules['nagisa'] = None; from mlx_qwen3asr.cli.main import main; sys.exit(main())"
    )
    args = ["--model", tiny_checkpoint, "--aligner", tiny_aligner_dir, "--language", "Japanese"]
    folder = ["-o", tmp_path / "out"] if to_folder else []
    run = subprocess.run(
        [sys.executable, "-c", without_nagisa, *map(str, [clip, silent, *args, "--max-new-tokens", 4, *folder])],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stderr
    lines = run.stderr.splitlines()
    assert lines[0].startswith(f"error: {clip}: Japanese alignment needs the nagisa word segmenter"), run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert run.stdout == f"==> {silent} <==\n\n", "the silent file's (empty) transcript is printed"
    if not to_folder:
        assert len(lines) == 1, run.stderr
        return
    assert len(lines) == 2 and "1 done, 0 skipped, 1 failed" in lines[1], run.stderr
    written = sorted(p.name for p in (tmp_path / "out").rglob("*") if p.is_file())  # mirrored under a common parent
    assert written == ["failures.jsonl", "silent.txt"], "the silent file written, the failed one recorded"


def test_a_quantized_model_whose_packed_weights_were_saved_as_floats_is_one_line_not_a_traceback(
    tmp_path, clip, tiny_checkpoint
):
    folder = convert(tiny_checkpoint, tmp_path / "q8", Recipe(bits=8, encoder_bits=8)).folder
    weights = mx.load(str(folder / "model.safetensors"))
    weights = {k: v.astype(mx.float32) if v.dtype == mx.uint32 else v for k, v in weights.items()}
    mx.save_safetensors(str(folder / "model.safetensors"), weights, metadata={"format": "mlx"})
    run = _cli(clip, "--model", folder)
    assert run.returncode == 1, run.stderr
    assert run.stderr.startswith("error: cannot load model: Checkpoint does not match its config.json: mis-typed ("), (
        run.stderr
    )
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
