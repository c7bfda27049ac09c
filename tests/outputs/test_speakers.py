"""Speakers in transcripts: word and segment speakers from turns, splits at speaker changes, and the
speaker marks of every output format (pure functions, table-driven); one run through transcribe."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.outputs.formats import render
from mlx_qwen3asr.outputs.speakers import speaker_of, with_speakers
from mlx_qwen3asr.testing.random_diarizer import write_random_diarizer

TURNS = [mq.Turn(0.0, 2.0, "SPEAKER_01"), mq.Turn(1.5, 4.0, "SPEAKER_00"), mq.Turn(6.0, 8.0, "SPEAKER_01")]


@pytest.mark.parametrize(
    ("start", "end", "speaker", "why"),
    [
        (0.2, 0.8, "SPEAKER_01", "inside one turn"),
        (1.4, 2.2, "SPEAKER_00", "0.6 s with SPEAKER_00 against 0.5 s with SPEAKER_01"),
        (1.6, 2.0, "SPEAKER_01", "a tie: the speaker met first"),
        (4.5, 4.9, "SPEAKER_00", "no overlap: the nearest turn (ends at 4.0)"),
        (5.5, 5.5, "SPEAKER_01", "a zero-length word: the nearest turn (starts at 6.0)"),
        (3.0, 7.0, "SPEAKER_00", "1.0 s of SPEAKER_00 against 1.0 s of SPEAKER_01: first met"),
    ],
)
def test_speaker_of_a_span(start, end, speaker, why):
    assert speaker_of(start, end, TURNS) == speaker, why


def test_no_turns_no_speaker():
    assert speaker_of(0.0, 1.0, []) is None


def aligned() -> mq.Transcription:
    words = [mq.Word("hello", 0.1, 0.5), mq.Word("there", 0.6, 1.0), mq.Word("yes", 2.5, 2.9), mq.Word("no", 6.5, 7.0)]
    segment = mq.Segment(0.0, 7.5, "Hello there, yes no.", language="English", token_ids=[1, 2, 3], words=words)
    return mq.Transcription(segment.text, "English", [segment, mq.Segment(7.5, 9.0, "Bye.", language="English")])


def test_segments_split_where_the_word_speaker_changes():
    result = with_speakers(aligned(), mq.Diarization(TURNS))
    rows = [(s.start, s.end, s.text, s.speaker, [w.speaker for w in s.words or []]) for s in result.segments]
    assert rows == [
        (0.0, 2.5, "hello there", "SPEAKER_01", ["SPEAKER_01", "SPEAKER_01"]),
        (2.5, 6.5, "yes", "SPEAKER_00", ["SPEAKER_00"]),
        (6.5, 7.5, "no", "SPEAKER_01", ["SPEAKER_01"]),
        (7.5, 9.0, "Bye.", "SPEAKER_01", []),  # no words: the nearest turn
    ]
    assert [s.token_ids for s in result.segments[:3]] == [[1, 2, 3], [], []], "ids stay with the first piece"


def test_subtitles_and_json_carry_the_speaker():
    result = with_speakers(aligned(), mq.Diarization(TURNS))
    srt, vtt = render(result, "srt"), render(result, "vtt")
    assert "00:00:00,100 --> 00:00:01,000\n[SPEAKER_01] hello there\n" in srt
    assert "00:00:02.500 --> 00:00:02.900\n<v SPEAKER_00>yes\n" in vtt
    document = json.loads(render(result, "json"))
    assert [s["speaker"] for s in document["segments"]] == ["SPEAKER_01", "SPEAKER_00", "SPEAKER_01", "SPEAKER_01"]
    assert document["segments"][0]["words"][0] == {"text": "hello", "start": 0.1, "end": 0.5, "speaker": "SPEAKER_01"}


def test_outputs_without_a_diarizer_have_no_speaker_marks():
    result = aligned()
    assert "[" not in render(result, "srt") and "<v" not in render(result, "vtt")
    assert "speaker" not in render(result, "json")


def test_transcribe_with_a_diarizer_labels_every_segment(tiny_model, speech, tmp_path):
    diarizer = mq.load(write_random_diarizer(tmp_path / "community-1", seed=0))
    result = mq.transcribe(speech, tiny_model, diarizer=diarizer)
    turns = mq.diarize(speech, diarizer).turns
    assert turns, "the random diarizer hears someone"
    assert [s.speaker for s in result.segments] == [speaker_of(s.start, s.end, turns) for s in result.segments]


def test_progress_counts_the_audio_transcribed_then_diarized(tiny_model, speech, diarizer):
    done = []
    mq.transcribe_batch(
        [speech], tiny_model, options=mq.DecodeOptions(max_new_tokens=2), diarizer=diarizer, on_progress=done.append
    )
    assert sum(done) == pytest.approx(2 * len(speech) / mq.SAMPLE_RATE, abs=0.05), "one bar over both stages"


def test_cli_diarize_prefixes_subtitle_cues_with_the_speaker(tiny_checkpoint, tmp_path):
    folder = write_random_diarizer(tmp_path / "community-1", seed=0)
    clip = str(Path(__file__).parents[1] / "fixtures" / "audio" / "short.wav")
    command = [sys.executable, "-m", "mlx_qwen3asr", clip, "--model", str(tiny_checkpoint), "--max-new-tokens", "5"]
    run = subprocess.run([*command, "-f", "srt", "--diarize", str(folder)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    cues = [line for line in run.stdout.splitlines() if line and "-->" not in line and not line.isdigit()]
    assert cues and all(line.startswith("[SPEAKER_") for line in cues), run.stdout
