"""Fixtures for the dictation app: a speech file, and no app process left running after a test
(the audio-sensitive `listening_model` is shared: tests/conftest.py)."""

import pytest
from dictation_helpers import RunningApp, SpeechFile, make_speech_file


@pytest.fixture(autouse=True)
def no_app_left_running():
    """Whatever a test asserts, the app processes it started are gone when it ends."""
    yield
    RunningApp.kill_all()


@pytest.fixture(scope="session")
def speech_file(tmp_path_factory) -> SpeechFile:
    return make_speech_file(tmp_path_factory.mktemp("speech"))
