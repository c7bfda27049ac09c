"""What `import mlx_qwen3asr as mq` offers: every exported name resolves, the names a live program meets
(events, statistics, the default model) are at the top, and the sub-packages' faces name what they hold."""

import importlib

import numpy as np
import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.cli.parser import build_parser

FACES = [
    "audio",
    "cli",
    "decode",
    "families",
    "families.fun_asr_nano",
    "families.pyannote",
    "layers",
    "loading",
    "loading.convert",
    "outputs",
    "runtime",
    "server",
    "streaming",
    "text",
    "vad",
]


def test_every_exported_name_resolves():
    missing = [name for name in mq.__all__ if not hasattr(mq, name)]
    assert not missing, f"mq.__all__ names what mq does not have: {missing}"


def test_the_default_model_is_what_the_command_line_loads_unless_told():
    assert build_parser().parse_args(["x.wav"]).model == mq.DEFAULT_MODEL == "Qwen/Qwen3-ASR-0.6B"


def test_a_live_session_speaks_in_names_exported_at_the_top(tiny_model):
    live = mq.LiveSession(tiny_model, vad=mq.EnergyVad())
    rng = np.random.default_rng(0)
    speech = rng.uniform(-0.5, 0.5, mq.SAMPLE_RATE * 2).astype(np.float32)
    events = live.feed(np.zeros(mq.SAMPLE_RATE, np.float32)) + live.feed(speech) + live.finish()
    assert events and all(isinstance(e, mq.Event) for e in events), [type(e) for e in events]
    assert isinstance(live.stats, mq.LiveStats), type(live.stats)


@pytest.mark.parametrize("face", FACES)
def test_every_name_a_sub_package_face_exports_resolves(face):
    module = importlib.import_module(f"mlx_qwen3asr.{face}")
    missing = [name for name in getattr(module, "__all__", []) if not hasattr(module, name)]
    assert not missing, f"mlx_qwen3asr.{face}.__all__ names what it lacks: {missing}"
