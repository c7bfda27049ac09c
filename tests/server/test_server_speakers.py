"""Speakers from the server: `--diarize` with the tiny listening model, the tiny aligner and the random-weight
diarizer, asked through the real `openai` client; the speakers must equal the library's. A server without a
diarizer refuses diarized_json in one line (in this process, on a fake engine)."""

import json
from pathlib import Path

import numpy as np
import pytest
from openai import OpenAI
from server_helpers import MAX_NEW_TOKENS, WaveHook, error_of, post_form, server_in_thread, server_process, wav_bytes

import mlx_qwen3asr as mq
from mlx_qwen3asr.server.app import build_app
from mlx_qwen3asr.server.routes import ServerState
from mlx_qwen3asr.server.transcription import ServedModels
from mlx_qwen3asr.server.worker import ModelWorker
from mlx_qwen3asr.testing.random_diarizer import write_random_diarizer

AUDIO = Path(__file__).resolve().parents[1] / "fixtures" / "audio"


@pytest.fixture(scope="module")
def diarizer_dir(tmp_path_factory) -> Path:
    return write_random_diarizer(tmp_path_factory.mktemp("diarizer") / "community-1", seed=0)


@pytest.fixture(scope="module")
def server(listening_checkpoint, tiny_aligner_dir, diarizer_dir):
    with server_process(
        listening_checkpoint, "--aligner", str(tiny_aligner_dir), "--diarize", str(diarizer_dir)
    ) as base:
        yield base


@pytest.fixture(scope="module")
def pcm() -> np.ndarray:
    """6 s of espeak-ng speech as int16."""
    return np.round(mq.load_audio(AUDIO / "long.wav")[: 6 * 16000] * 32768).astype(np.int16)


@pytest.fixture(scope="module")
def reference(pcm, listening_model, tiny_aligner, diarizer_dir):
    """What the library gives: (segment speakers only, with words timed and labelled)."""
    wave, diarizer = pcm.astype(np.float32) / 32768, mq.load(diarizer_dir)
    plain = mq.transcribe(wave, listening_model, max_new_tokens=MAX_NEW_TOKENS, diarizer=diarizer)
    worded = mq.transcribe(
        wave, listening_model, max_new_tokens=MAX_NEW_TOKENS, diarizer=diarizer, aligner=tiny_aligner
    )
    assert all(s.speaker for s in plain.segments), "the reference must have speakers, or equality proves nothing"
    return plain, worded


def spans(segments) -> list[tuple]:
    return [(round(s.start, 3), round(s.end, 3), s.text, s.speaker) for s in segments if s.text.strip()]


def test_diarized_json_has_openais_shape_and_the_librarys_speakers(server, pcm, reference):
    client = OpenAI(base_url=f"{server}/v1", api_key="local", max_retries=0, timeout=120)
    answer = client.audio.transcriptions.create(
        file=("speech.wav", wav_bytes(pcm)), model="qwen3-asr", response_format="diarized_json"
    )
    assert answer.text == reference[0].text and answer.task == "transcribe" and answer.duration == 6.0
    assert [(s.start, s.end, s.text, s.speaker) for s in answer.segments] == spans(reference[0].segments)
    ids = [f"seg_{i}" for i in range(len(answer.segments))]
    assert answer.segments and [(s.type, s.id) for s in answer.segments] == [
        ("transcript.text.segment", i) for i in ids
    ]
    assert (answer.usage.type, answer.usage.seconds) == ("duration", 6)


def test_verbose_json_segments_and_words_carry_speakers(server, pcm, reference):
    fields = {"response_format": "verbose_json", "timestamp_granularities[]": "word"}
    status, _, body = post_form(
        f"{server}/v1/audio/transcriptions", fields, {"file": ("a.wav", wav_bytes(pcm))}, timeout=120
    )
    assert status == 200, body
    document, worded = json.loads(body), reference[1]
    assert [s["speaker"] for s in document["segments"]] == [s.speaker for s in worded.segments]
    assert [(w["word"], w["speaker"]) for w in document["words"]] == [
        (w.text, w.speaker) for s in worded.segments for w in s.words
    ]


def test_a_diarized_stream_sends_the_speaker_segments_before_the_done_event(server, pcm, reference):
    fields = {"response_format": "diarized_json", "stream": "true"}
    status, _, body = post_form(
        f"{server}/v1/audio/transcriptions", fields, {"file": ("a.wav", wav_bytes(pcm))}, timeout=120
    )
    events = [json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data: ")]
    segments = [
        (e["start"], e["end"], e["text"], e["speaker"]) for e in events if e["type"] == "transcript.text.segment"
    ]
    assert status == 200 and segments == spans(reference[0].segments), body
    assert events[-1] == {"type": "transcript.text.done", "text": reference[0].text}


def test_a_server_without_a_diarizer_refuses_diarized_json_in_one_line(tiny_model):
    def decoded(rows: int) -> None:
        pytest.fail("nothing may be decoded")

    worker = ModelWorker(lambda: ServedModels(WaveHook(tiny_model, decoded)))
    worker.start()
    with server_in_thread(build_app(ServerState(worker, "fake"))) as base:
        form = {"response_format": "diarized_json"}
        status, _, body = post_form(
            f"{base}/v1/audio/transcriptions", form, {"file": ("a.wav", wav_bytes(np.zeros(800)))}
        )
    worker.stop()
    error = error_of(body)
    assert (status, error["param"]) == (400, "response_format"), body
    assert "--diarize" in error["message"] and "\n" not in error["message"], error["message"]
