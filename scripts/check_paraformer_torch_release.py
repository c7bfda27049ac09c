"""Our Paraformer against funasr 1.4.16 on a release that torch itself wrote. DEV ONLY (the reference venv).

    /work/.venv-funasr-ref/bin/python -m scripts.check_paraformer_torch_release [--real]

The goldens (make_paraformer_goldens.py) come from model.pt files written by our numpy writer; this check
takes the other road a user's release takes: random_paraformer's folder -> funasr builds the model -> every
module's own reset_parameters (torch's default initialisation) -> torch.save(model.state_dict()) as the
release's model.pt -> funasr.AutoModel (dither 0) and our mq.load + mq.transcribe, in this one process, on
the golden clips -> the texts compared; exit status 1 on any difference.
Measured: identical texts on every clip at the tiny size, and on the short, 3 s, noise and long clips at the real size.
"""

import argparse
import sys
import tempfile
from pathlib import Path

import torch
from funasr import AutoModel

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.random_paraformer import (
    real_paraformer_config,
    tiny_paraformer_config,
    write_random_paraformer,
)
from scripts.golden_clips import clips


def torch_release(folder: Path, config: dict) -> Path:
    write_random_paraformer(folder, config)
    torch.manual_seed(0)
    model = AutoModel(model=str(folder), device="cpu", disable_update=True, ncpu=2).model
    for module in model.modules():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    torch.save(model.state_dict(), folder / "model.pt")
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="store_true", help="the real-size configuration (0.9 GB model.pt)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = real_paraformer_config() if args.real else tiny_paraformer_config()
        folder = torch_release(Path(tmp) / "release", config)
        reference = AutoModel(
            model=str(folder), device="cpu", disable_update=True, ncpu=2, frontend_conf={"dither": 0.0}
        )
        ours = mq.load(folder, dtype="float32")
        differ = 0
        for name, wave in clips().items():
            theirs = reference.generate(input=wave, disable_pbar=True)[0]["text"]
            text = mq.transcribe(wave, ours).text
            differ += text != theirs
            print(f"{name}: {'same' if text == theirs else 'DIFFERENT'} ({len(theirs)} characters) {theirs[:30]!r}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
