"""What `import mlx_qwen3asr as mq` offers: every exported name resolves, the names a live program meets
(events, statistics, the default model) are at the top, and the sub-packages' faces name what they hold."""

import importlib
import subprocess
import sys

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


def test_importing_the_package_imports_no_family_and_not_mlx():
    """The face is lazy: `import mlx_qwen3asr` loads its own module only; a name loads its module on use."""
    probe = (
        "import sys, mlx_qwen3asr as mq\n"
        "before = sorted(m for m in sys.modules if m.startswith('mlx_qwen3asr') or m == 'mlx.core')\n"
        "mq.DecodeOptions\n"
        "after = sorted(m for m in sys.modules if m.startswith('mlx_qwen3asr.families'))\n"
        "print(before, after)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "['mlx_qwen3asr'] []", run.stdout + run.stderr


def test_an_unknown_name_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="module 'mlx_qwen3asr' has no attribute 'transcribe_everything'"):
        mq.transcribe_everything  # noqa: B018


def test_transcribe_batch_takes_decode_options_whole(tiny_model, speech):
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'language': pass options=mq\.DecodeOptions"):
        mq.transcribe_batch([speech], tiny_model, language="English")
    with pytest.raises(ValueError, match="pass either options= or language/context/max_new_tokens/hotwords"):
        mq.transcribe(speech, tiny_model, options=mq.DecodeOptions(), language="English")
    one = mq.transcribe(speech, tiny_model, language="English", max_new_tokens=4)
    batch = mq.transcribe_batch([speech], tiny_model, options=mq.DecodeOptions("English", max_new_tokens=4))
    assert one.token_ids == batch[0].token_ids, "transcribe's keywords are the options transcribe_batch takes"


def test_transcribe_files_takes_a_folder_spec(tiny_model, tmp_path):
    with pytest.raises(TypeError, match=r"^transcribe_files takes a FolderSpec, got Qwen3ASR: pass mq\.FolderSpec"):
        mq.transcribe_files([tmp_path], tiny_model, tmp_path / "out")
    assert not (tmp_path / "out").exists(), "nothing planned or written"
