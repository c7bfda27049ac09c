"""Fixtures for the dictation app: an audio-sensitive random model and a speech file.

The plain random test model says the same thing whatever it hears, so "the app's text equals
transcribe's" would hold even with wrong utterance boundaries. `listening_checkpoint` scales the
audio projection (x100) and the decoder's attention values/outputs (x10) of the tiny checkpoint:
its (still meaningless) text then changes with the audio, so boundaries show in the text.
"""

from pathlib import Path

import mlx.core as mx
import pytest
from dictation_helpers import RunningApp, SpeechFile, make_speech_file

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.random_checkpoint import tiny_config, write_random_checkpoint


@pytest.fixture(autouse=True)
def no_app_left_running():
    """Whatever a test asserts, the app processes it started are gone when it ends."""
    yield
    RunningApp.kill_all()


@pytest.fixture(scope="session")
def listening_checkpoint(tmp_path_factory) -> Path:
    folder = write_random_checkpoint(tmp_path_factory.mktemp("listening") / "model", tiny_config(), seed=0)
    weights = mx.load(str(folder / "model.safetensors"))
    for name, value in weights.items():
        scale = 100.0 if name.startswith("thinker.audio_tower.proj2") else 1.0
        if name.startswith("thinker.model.layers") and (".o_proj." in name or ".v_proj." in name):
            scale = 10.0
        if scale != 1.0:
            weights[name] = (value.astype(mx.float32) * scale).astype(value.dtype)
    mx.save_safetensors(str(folder / "model.safetensors"), weights, metadata={"format": "pt"})
    return folder


@pytest.fixture(scope="session")
def listening_model(listening_checkpoint):
    return mq.load(listening_checkpoint, dtype="float32")


@pytest.fixture(scope="session")
def speech_file(tmp_path_factory) -> SpeechFile:
    return make_speech_file(tmp_path_factory.mktemp("speech"))
