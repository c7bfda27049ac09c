"""Word timestamps end to end: `python -m mlx_qwen3asr.server --aligner A` with the tiny listening model and
the tiny random aligner, asked through the real `openai` client; the words must equal the library's."""

from pathlib import Path

import numpy as np
import pytest
from openai import OpenAI
from server_helpers import MAX_NEW_TOKENS, error_of, post_form, server_process, wav_bytes

import mlx_qwen3asr as mq

AUDIO = Path(__file__).resolve().parents[1] / "fixtures" / "audio"


@pytest.fixture(scope="module")
def server(listening_checkpoint, tiny_aligner_dir):
    with server_process(listening_checkpoint, "--aligner", str(tiny_aligner_dir)) as base:
        yield base


@pytest.fixture(scope="module")
def pcm() -> np.ndarray:
    """6 s of espeak-ng speech as int16."""
    return np.round(mq.load_audio(AUDIO / "long.wav")[: 6 * 16000] * 32768).astype(np.int16)


def test_verbose_json_with_word_granularity_gives_the_words_the_library_times(
    server, listening_model, tiny_aligner, pcm
):
    reference = mq.transcribe(pcm.astype(np.float32) / 32768, listening_model, max_new_tokens=MAX_NEW_TOKENS,
                              aligner=tiny_aligner)  # fmt: skip
    expected = [(w.text, w.start, w.end) for s in reference.segments for w in s.words]
    assert len(expected) >= 2, "the reference must have words, or equality proves nothing"
    client = OpenAI(base_url=f"{server}/v1", api_key="local", max_retries=0, timeout=60)
    answer = client.audio.transcriptions.create(
        file=("speech.wav", wav_bytes(pcm)),
        model="qwen3-asr",
        response_format="verbose_json",
        timestamp_granularities=["word"],
    )
    assert [(w.word, w.start, w.end) for w in answer.words] == expected
    assert answer.text == reference.text and [s.text for s in answer.segments] == [s.text for s in reference.segments]


def test_word_granularity_without_verbose_json_is_refused_and_the_server_keeps_serving(server, pcm):
    url, speech = f"{server}/v1/audio/transcriptions", {"file": ("a.wav", wav_bytes(pcm[:16000]))}
    status, _, body = post_form(url, {"timestamp_granularities[]": "word", "response_format": "json"}, speech)
    assert (status, error_of(body)["param"]) == (400, "timestamp_granularities"), body
    status, _, body = post_form(url, {"response_format": "verbose_json"}, speech)
    assert status == 200 and b'"words"' not in body, "words only when asked for"
