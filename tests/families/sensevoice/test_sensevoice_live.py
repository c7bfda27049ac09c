"""mq.LiveSession with SenseVoiceSmall: partials are one encoder pass over the utterance so far (no token loop),
commits are transcribe's text of the committed audio."""

import numpy as np
import pytest
from sensevoice_goldens import clip

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.live import fed_in_real_time
from mlx_qwen3asr.testing.signals import silence


def test_a_live_session_commits_transcribe_text_and_shows_partials(sensevoice):
    audio = np.concatenate([silence(0.5), clip("short"), silence(1.2), clip("exact"), silence(1.2)])
    events = fed_in_real_time(sensevoice, audio)
    commits = [e for e in events if e.type == "commit"]
    assert len(commits) == 2, [e.text for e in commits]
    for commit in commits:
        offline = mq.transcribe(commit.audio, sensevoice)
        assert commit.text and (commit.text, commit.language) == (offline.text, offline.language)
    partials = [e for e in events if e.type == "partial" and e.text]
    assert len(partials) >= 2, "partials come while an utterance is open"


def test_the_window_engine_is_refused_in_one_line(sensevoice):
    from mlx_qwen3asr.streaming.window_decoder import window_decoder

    with pytest.raises(ValueError, match="no decoder loop") as error:
        window_decoder(sensevoice, mq.DecodeOptions())
    assert "\n" not in str(error.value)
