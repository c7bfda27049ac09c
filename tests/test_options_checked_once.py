"""Options are checked once on each road, at its front door: the library's transcribe and transcribe_batch,
the command line with and without -o, a folder run, a server request. The engine behind them does not
check again, however many groups or waves the audio takes; bad options still fail first, in one line."""

import wave
from pathlib import Path

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.cli import main as cli
from mlx_qwen3asr.testing.signals import burst

TOKENS = 2
WAVE = burst(0.5, seed=1)  # speech-like: it reaches the model (silence would be skipped before it)


@pytest.fixture
def wavs(tmp_path) -> list[Path]:
    """Three files: with batch size 1, three groups of a folder run and three waves of a batch."""
    paths = [tmp_path / f"in/{name}.wav" for name in "abc"]
    for path in paths:
        path.parent.mkdir(exist_ok=True)
        with wave.open(str(path), "wb") as f:
            f.setnchannels(1), f.setsampwidth(2), f.setframerate(16000)
            f.writeframes(np.round(WAVE * 32767).astype("<i2").tobytes())
    return paths


def test_the_library_checks_once_per_call_whatever_the_waves(option_checks, tiny_model, wavs):
    mq.transcribe(wavs[0], tiny_model, max_new_tokens=TOKENS)
    assert len(option_checks) == 1, f"transcribe: {len(option_checks)} checks"
    results = mq.transcribe_batch(wavs, tiny_model, options=mq.DecodeOptions(max_new_tokens=TOKENS), batch_size=1)
    assert len(results) == 3 and len(option_checks) == 2, (
        f"transcribe_batch over three waves: {len(option_checks) - 1} checks"
    )


def test_the_command_line_checks_once_with_and_without_an_output_folder(option_checks, tiny_checkpoint, wavs, tmp_path):
    flags = ["--model", str(tiny_checkpoint), "--max-new-tokens", str(TOKENS), "--batch-size", "1"]
    assert cli.main([*map(str, wavs), *flags]) == 0
    assert len(option_checks) == 1, f"printed, three groups: {len(option_checks)} checks"
    assert cli.main([str(wavs[0].parent), "-o", str(tmp_path / "out"), *flags]) == 0
    assert len(option_checks) == 2, f"-o DIR, three groups: {len(option_checks) - 1} checks"
    assert len(list((tmp_path / "out").glob("*.txt"))) == 3, "every file was transcribed"


def test_a_folder_run_checks_once(option_checks, tiny_model, wavs, tmp_path):
    options = mq.DecodeOptions(max_new_tokens=TOKENS)
    summary = mq.transcribe_files([wavs[0].parent], mq.FolderSpec(tiny_model, options, batch_size=1), tmp_path / "out")
    assert summary.failed == 0 and len(option_checks) == 1, f"{summary}; {len(option_checks)} checks"


def test_bad_options_still_fail_first_in_one_line_on_every_road(tiny_model, tiny_checkpoint, wavs, tmp_path, capsys):
    with pytest.raises(ValueError, match=r"^context and hotwords must not contain '<\|audio_pad\|>': remove it$"):
        mq.transcribe_batch(wavs, tiny_model, options=mq.DecodeOptions(context="<|audio_pad|>"))
    out = tmp_path / "out"
    code = cli.main(
        [str(wavs[0].parent), "-o", str(out), "--model", str(tiny_checkpoint), "--context", "<|audio_pad|>"]
    )
    error = capsys.readouterr().err
    assert code == 2 and error.startswith("error: context and hotwords") and error.count("\n") == 1, error
    assert not list(out.glob("*.txt")), "refused before any file was decoded"
