"""A session's start (its options checked once) and its stop: the first Ctrl-C (or SIGTERM) finishes
gracefully, the second exits at once."""

import numpy as np
import pytest
from dictation_helpers import burst, silence, write_wav

from mlx_qwen3asr_app.__main__ import main
from mlx_qwen3asr_app.session import StopSignals


def test_first_signal_stops_gracefully_and_the_second_exits_at_once():
    exits: list[str] = []
    signals = StopSignals(exit_now=lambda: exits.append("now"))
    with pytest.raises(KeyboardInterrupt):
        signals()
    assert exits == [], "the first Ctrl-C must let the session finish"
    signals()
    assert exits == ["now"], "the second Ctrl-C exits at once"


def test_the_dictation_app_checks_its_options_once(option_checks, tiny_checkpoint, tmp_path, capfd):
    speech = np.concatenate([silence(0.5), burst(1.5, seed=2), silence(1.0)])
    wav = write_wav(tmp_path / "speech.wav", np.round(speech * 32767).astype(np.int16))
    flags = ["--dtype", "float32", "--max-new-tokens", "2", "--fast", "--vad", "energy"]
    assert main(["--model", str(tiny_checkpoint), "--input", str(wav), *flags]) == 0
    assert "1 utterances" in capfd.readouterr().err, "the app committed the speech"
    assert len(option_checks) == 1, f"{len(option_checks)} checks: LiveSession's, at the session's start"
