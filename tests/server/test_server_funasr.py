"""The server with a Fun-ASR-Nano folder: the same endpoints, the library's answers."""

import json
from pathlib import Path

import numpy as np
import pytest
from openai import BadRequestError, OpenAI
from server_helpers import MAX_NEW_TOKENS, server_process, wav_bytes
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.random_funasr import tiny_funasr_config, write_random_funasr

SPEECH = mq.load_audio(Path(__file__).resolve().parents[1] / "fixtures" / "audio" / "short.wav")


@pytest.fixture(scope="module")
def funasr_dir(tmp_path_factory):
    return write_random_funasr(tmp_path_factory.mktemp("funasr") / "tiny", tiny_funasr_config(), seed=0)


@pytest.fixture(scope="module")
def server_url(funasr_dir):
    with server_process(funasr_dir) as base:
        yield base


@pytest.fixture(scope="module")
def client(server_url):
    return OpenAI(base_url=f"{server_url}/v1", api_key="local", max_retries=0, timeout=60)


def test_a_fun_asr_nano_server_answers_what_the_library_gives(client, funasr_dir):
    pcm = np.round(SPEECH * 32768).astype(np.int16)
    model = mq.load(funasr_dir, dtype="float32")
    for language in (None, "en"):
        fields = {"language": language} if language else {}
        answer = client.audio.transcriptions.create(file=("s.wav", wav_bytes(pcm)), model="fun-asr-nano", **fields)
        reference = mq.transcribe(
            pcm.astype(np.float32) / 32768, model, language=language and "English", max_new_tokens=MAX_NEW_TOKENS
        )
        assert answer.text == reference.text, language


def test_a_language_fun_asr_nano_cannot_be_told_is_a_400_naming_it(client):
    pcm = np.round(SPEECH * 32768).astype(np.int16)
    with pytest.raises(BadRequestError, match="Fun-ASR-Nano cannot be told the language 'German'"):
        client.audio.transcriptions.create(file=("s.wav", wav_bytes(pcm)), model="fun-asr-nano", language="de")


def test_a_live_session_with_a_language_fun_asr_nano_cannot_be_told_is_refused_with_the_reason(server_url):
    with connect(f"{server_url.replace('http', 'ws')}/v1/audio/live?language=de", open_timeout=30) as ws:
        event = json.loads(ws.recv(timeout=30))
        assert (event["type"], event["error"]["param"]) == ("error", "language"), event
        assert "Fun-ASR-Nano cannot be told the language 'German'" in event["error"]["message"]
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=30)
    assert closed.value.rcvd.code == 1008, "closed as a policy violation"
