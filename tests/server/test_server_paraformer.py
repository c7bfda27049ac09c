"""The server with a Paraformer release folder: transcriptions as the library gives them, refusals as 400s."""

from pathlib import Path

import numpy as np
import pytest
from openai import BadRequestError, OpenAI
from server_helpers import server_process, wav_bytes

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.random_paraformer import write_random_paraformer

SPEECH = mq.load_audio(Path(__file__).resolve().parents[1] / "fixtures" / "audio" / "short.wav")


@pytest.fixture(scope="module")
def paraformer_dir(tmp_path_factory):
    return write_random_paraformer(tmp_path_factory.mktemp("paraformer") / "tiny", seed=0)


def test_a_paraformer_server_answers_what_the_library_gives_and_refuses_a_prompt(paraformer_dir):
    pcm = np.round(SPEECH * 32768).astype(np.int16)
    reference = mq.transcribe(pcm.astype(np.float32) / 32768, mq.load(paraformer_dir, dtype="float32"))
    with server_process(paraformer_dir) as base:
        client = OpenAI(base_url=f"{base}/v1", api_key="local", max_retries=0, timeout=60)
        answer = client.audio.transcriptions.create(
            file=("s.wav", wav_bytes(pcm)), model="paraformer", response_format="verbose_json"
        )
        assert answer.text == reference.text and answer.segments[0].tokens == reference.segments[0].token_ids
        with pytest.raises(BadRequestError, match="Paraformer takes no context or hotwords"):
            client.audio.transcriptions.create(file=("s.wav", wav_bytes(pcm)), model="paraformer", prompt="Qwen")
