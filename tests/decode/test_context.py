"""Contexts as users write them: text, a context file, a hotword list; too long is one clear line."""

import subprocess
import sys
import wave

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.qwen3_asr.model import MAX_CONTEXT_TOKENS
from mlx_qwen3asr.families.qwen3_asr.prompt import prompt_context
from mlx_qwen3asr.options import read_hotwords

AT_LIMIT = " ".join(["word"] * MAX_CONTEXT_TOKENS)  # "word", then " word" 9,999 times: 10,000 tokens
TOO_LONG = AT_LIMIT + " word"


@pytest.fixture
def files(tmp_path):
    context = tmp_path / "context.txt"
    context.write_text("Meeting of the MLX team in Zürich.\n\n", encoding="utf-8")
    hotwords = tmp_path / "hotwords.txt"
    hotwords.write_text("Qwen3-ASR\n  DashScope  \n\nZürich\nQwen3-ASR\n", encoding="utf-8")
    return context, hotwords


def test_a_hotword_file_or_list_gives_the_terms_in_order(files):
    _, hotwords = files
    assert read_hotwords(hotwords) == ["Qwen3-ASR", "DashScope", "Zürich"], "stripped, blanks and repeats dropped"
    assert read_hotwords(" Qwen3-ASR, DashScope,,Zürich, Qwen3-ASR") == ["Qwen3-ASR", "DashScope", "Zürich"]
    assert prompt_context("", read_hotwords(hotwords)) == "Qwen3-ASR, DashScope, Zürich", "Qwen3-ASR: one line"


def test_context_text_and_file_are_joined_by_newlines_and_hotwords_kept_apart(files):
    context, hotwords = files
    options = mq.DecodeOptions.from_files("english", "Speakers: Ana, Bo", 8, context_file=context, hotwords=hotwords)
    expected = "Speakers: Ana, Bo\nMeeting of the MLX team in Zürich."
    assert (options.language, options.context, options.max_new_tokens) == ("English", expected, 8)
    assert options.hotwords == ("Qwen3-ASR", "DashScope", "Zürich")
    assert options.prompt_text == expected + "\nQwen3-ASR, DashScope, Zürich", "what the length limit counts"
    assert mq.DecodeOptions.from_files(hotwords="Qwen, MLX").hotwords == ("Qwen", "MLX")


def test_qwen3_asr_puts_hotwords_in_its_context_as_one_line(tiny_model, speech):
    hot = mq.transcribe(speech, tiny_model, context="Topic: MLX", hotwords=["Qwen", "Zürich"], max_new_tokens=4)
    same = mq.transcribe(speech, tiny_model, context="Topic: MLX\nQwen, Zürich", max_new_tokens=4)
    assert hot.segments[0].token_ids == same.segments[0].token_ids, "Qwen3-ASR has no hotword slot"
    options = mq.DecodeOptions(hotwords=["Qwen", "Zürich"])
    assert (
        tiny_model.prompt_parts(options.context, None, options.hotwords)[0]
        == tiny_model.prompt_parts("Qwen, Zürich")[0]
    )


def test_an_unreadable_file_is_one_line_naming_it(tmp_path):
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Zürich".encode("latin-1"))
    for kwargs, words in (
        ({"context_file": tmp_path / "missing.txt"}, ["--context-file", "missing.txt"]),
        ({"hotwords": latin1}, ["--hotwords", "latin1.txt", "UTF-8"]),
        ({"context_file": tmp_path}, ["--context-file", "readable text file"]),
    ):
        with pytest.raises(ValueError) as error:
            mq.DecodeOptions.from_files(**kwargs)
        message = str(error.value)
        assert "\n" not in message and all(w in message for w in words), message


def test_a_context_over_the_limit_is_refused_before_any_audio_is_decoded(tiny_model, speech):
    mq.DecodeOptions(context=AT_LIMIT).check(tiny_model)  # accepted
    for call in (
        lambda: mq.transcribe(speech, tiny_model, context=TOO_LONG),
        lambda: mq.StreamingTranscriber(tiny_model, mq.DecodeOptions(None, TOO_LONG)),
        lambda: mq.LiveSession(tiny_model, mq.DecodeOptions(context=TOO_LONG)),
    ):
        with pytest.raises(
            ValueError, match=f"the context is 10001 tokens; the model takes at most {MAX_CONTEXT_TOKENS}"
        ):
            call()


def test_the_command_line_takes_context_files_and_hotwords(tmp_path, files, tiny_checkpoint, tiny_model, speech):
    context, hotwords = files
    wav = tmp_path / "speech.wav"
    _write_wav(wav, speech)
    expected_context = "Meeting of the MLX team in Zürich.\nQwen3-ASR, DashScope, Zürich"
    expected = mq.transcribe(wav, tiny_model, context=expected_context, max_new_tokens=5)
    run = _cli(
        wav, "--model", tiny_checkpoint, "--max-new-tokens", 5, "--context-file", context, "--hotwords", hotwords
    )
    assert (run.returncode, run.stdout) == (0, expected.text + "\n"), run.stderr
    listed = _cli(
        wav, "--model", tiny_checkpoint, "--max-new-tokens", 5, "--context-file", context,
        "--hotwords", "Qwen3-ASR, DashScope, Zürich", "--language", "en",
    )  # fmt: skip
    forced = mq.transcribe(wav, tiny_model, language="English", context=expected_context, max_new_tokens=5)
    assert (listed.returncode, listed.stdout) == (0, forced.text + "\n"), "a comma-separated list, a code"
    too_long = tmp_path / "long.txt"
    too_long.write_text(TOO_LONG, encoding="utf-8")
    run = _cli(wav, "--model", tiny_checkpoint, "--context-file", too_long)
    assert run.returncode == 2 and run.stdout == "", run.stderr
    assert run.stderr.startswith("error: the context is 10001 tokens") and run.stderr.count("\n") == 1, run.stderr


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mlx_qwen3asr", *map(str, args)], capture_output=True, text=True)


def _write_wav(path, samples: np.ndarray) -> None:
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1), f.setsampwidth(2), f.setframerate(16000)
        f.writeframes(np.round(samples * 32767).astype("<i2").tobytes())


def test_hotwords_given_as_a_missing_file_are_refused_not_taken_as_a_term(tmp_path):
    with pytest.raises(ValueError, match="--hotwords .*terms.txt cannot be read"):
        read_hotwords("terms.txt")
    assert read_hotwords("Node.js") == ["Node.js"], "a term that is no file name"
