"""Stopping: the first Ctrl-C (or SIGTERM) finishes gracefully, the second exits at once."""

import pytest

from mlx_qwen3asr_app.session import StopSignals


def test_first_signal_stops_gracefully_and_the_second_exits_at_once():
    exits: list[str] = []
    signals = StopSignals(exit_now=lambda: exits.append("now"))
    with pytest.raises(KeyboardInterrupt):
        signals()
    assert exits == [], "the first Ctrl-C must let the session finish"
    signals()
    assert exits == ["now"], "the second Ctrl-C exits at once"
