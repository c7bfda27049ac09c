"""The server with a SenseVoiceSmall release folder: transcriptions as the library gives them, tags in verbose_json."""

from pathlib import Path

import numpy as np
import pytest
from openai import BadRequestError, OpenAI
from server_helpers import server_process, wav_bytes

import mlx_qwen3asr as mq

SPEECH = mq.load_audio(Path(__file__).resolve().parents[1] / "fixtures" / "audio" / "short.wav")


@pytest.fixture(scope="module")
def client(sensevoice_dir):
    with server_process(sensevoice_dir) as base:
        yield OpenAI(base_url=f"{base}/v1", api_key="local", max_retries=0, timeout=60)


def test_a_sensevoice_server_answers_what_the_library_gives_with_its_tags(client, sensevoice):
    pcm = np.round(SPEECH * 32768).astype(np.int16)
    reference = mq.transcribe(pcm.astype(np.float32) / 32768, sensevoice)
    answer = client.audio.transcriptions.create(
        file=("s.wav", wav_bytes(pcm)), model="sensevoice", response_format="verbose_json"
    )
    assert answer.text == reference.text and answer.language == reference.language
    assert answer.segments[0].tokens == reference.segments[0].token_ids


def test_hotwords_are_a_400_naming_the_model(client):
    pcm = np.round(SPEECH * 32768).astype(np.int16)
    with pytest.raises(BadRequestError, match="SenseVoiceSmall takes no context or hotwords"):
        client.audio.transcriptions.create(file=("s.wav", wav_bytes(pcm)), model="sensevoice", prompt="Qwen, MLX")
