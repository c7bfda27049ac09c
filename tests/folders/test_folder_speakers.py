"""Folder runs carry speakers: transcribe_files and `-o` with a diarizer write, in every format, what
`transcribe` gives each file alone with that diarizer (the pyannote tests' random-weight diarizer)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.outputs.formats import render

AUDIO = Path(__file__).parents[1] / "fixtures" / "audio"
CLIPS = ("short.wav", "exact.wav")  # espeak-ng speech, 2.5 s and 3 s
TOKENS = 5


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("speakers") / "clips"
    folder.mkdir()
    for name in CLIPS:
        shutil.copy(AUDIO / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def alone(clips, tiny_model, diarizer) -> dict[str, mq.Transcription]:
    return {
        Path(name).stem: mq.transcribe(clips / name, tiny_model, max_new_tokens=TOKENS, diarizer=diarizer)
        for name in CLIPS
    }


def test_every_format_of_a_folder_run_carries_the_speakers_transcribe_gives(
    clips, alone, tiny_checkpoint, diarizer_dir, tmp_path
):
    summary = mq.transcribe_files(
        [clips],
        mq.FolderSpec(tiny_checkpoint, mq.DecodeOptions(max_new_tokens=TOKENS), dtype="float32", diarizer=diarizer_dir),
        tmp_path,
        formats=["json", "srt", "vtt"],
    )
    assert (summary.done, summary.failed) == (len(CLIPS), 0), summary
    for stem, result in alone.items():
        assert result.segments and all(s.speaker for s in result.segments), "the random diarizer hears someone"
        for fmt in ("json", "srt", "vtt"):
            assert (tmp_path / f"{stem}.{fmt}").read_text() == render(result, fmt), f"{stem}.{fmt}"
        assert "[SPEAKER_" in (tmp_path / f"{stem}.srt").read_text()
        assert "<v SPEAKER_" in (tmp_path / f"{stem}.vtt").read_text()


def test_the_command_line_writes_with_o_the_speakers_it_prints(clips, tiny_checkpoint, diarizer_dir, tmp_path):
    clip = clips / CLIPS[0]
    command = [sys.executable, "-m", "mlx_qwen3asr", clip, "--model", tiny_checkpoint, "--max-new-tokens", TOKENS]
    command += ["-f", "srt", "--diarize", diarizer_dir]
    printed = subprocess.run(list(map(str, command)), capture_output=True, text=True, timeout=300)
    assert printed.returncode == 0 and "[SPEAKER_" in printed.stdout, printed.stderr
    written = subprocess.run(list(map(str, [*command, "-o", tmp_path])), capture_output=True, text=True, timeout=300)
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "short.srt").read_text() == printed.stdout, "the same cues, speakers included"
    assert written.stdout == printed.stdout, "-o prints each transcript as it is written"
