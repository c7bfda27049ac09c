"""Regenerate the SenseVoiceSmall golden fixtures from funasr 1.4.16 (the reference). DEV ONLY.

    /work/.venv-funasr-ref/bin/python -m scripts.make_sensevoice_goldens [--real] [--clips short ...]

The reference environment (a venv outside the repo; torch never enters the package or the tests):
    python3 -m venv /work/.venv-funasr-ref
    /work/.venv-funasr-ref/bin/pip install torch==2.13.0        # the CPU wheel on local disk; FIRST
    /work/.venv-funasr-ref/bin/pip install funasr==1.4.16 sentencepiece "mlx[cpu]"
    /work/.venv-funasr-ref/bin/pip install --no-deps torchaudio==2.11.0
    rm /work/.venv-funasr-ref/lib/python3.11/site-packages/torchaudio/lib/*.so
funasr's WavFrontend calls torchaudio.compliance.kaldi.fbank (without torchaudio it wants kaldi-native-fbank);
the only torchaudio here is a CUDA build pinned to torch 2.11: without its .so files it imports as pure Python,
and its Kaldi fbank is pure torch. mlx: the script imports the package's
writers. Run it from the repository root as a module (python -m scripts.make_sensevoice_goldens). Nothing is
downloaded: the model is built from a random-weight release folder by AutoModel(model=folder).

random_sensevoice.write_random_sensevoice(config, seed 0) -> temporary release folder (config.yaml, model.pt,
am.mvn, .bpe.model, configuration.json) -> funasr.AutoModel (CPU, ncpu=2: funasr resets torch to 4 threads per
call unless told) with the front end's dither set to 0 (its default is 1.0: random) -> model.generate per variant:
    language auto/en/zh/ja, use_itn on/off, CMVN on (the release's configuration.json names am.mvn) / off
-> tests/fixtures/sensevoice/<size>_<clip>.npz:
    n_frames (LFR frames, without the 4 queries), for each variant <v>: <v>_ids (the collapsed CTC ids, tags
    included), <v>_text (funasr's text, tags included); for the first variant of the clip (and "nocmvn" when run):
    features / encoder / logprobs [+ _rows]: the encoder's input (queries + features), its output and the CTC
    log-probabilities, whole for the tiny short clip, rows (and for the real size 64 columns) elsewhere;
    argmax (every frame's best id) for each variant.
--real: the real-size configuration (25,055 pieces, 70 layers; 0.9 GB model.pt) on the short and 40 s clips.
"""

import argparse
import re
import tempfile
from pathlib import Path

import numpy as np
import torch
from funasr import AutoModel

from mlx_qwen3asr.testing.random_sensevoice import (
    real_sensevoice_config,
    tiny_sensevoice_config,
    write_random_sensevoice,
)
from scripts.golden_clips import clips, rows

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "tests/fixtures/sensevoice"
REAL_COLUMNS = 64  # log-prob columns kept per row for the real size (ids 0..63: the blank and the first pieces)
# variant -> (language, use_itn, cmvn)
VARIANTS = {
    f"{lang}_{'itn' if itn else 'noitn'}": (lang, itn, True)
    for lang in ("auto", "en", "zh", "ja")
    for itn in (False, True)
}
VARIANTS.update({"auto_noitn_nocmvn": ("auto", False, False), "en_itn_nocmvn": ("en", True, False)})
FEW = ("auto_noitn", "en_itn", "auto_noitn_nocmvn")  # what the clips other than the short one are run with


class Capture:
    """The encoder's input (a copy: the encoder scales it in place) and output, and the CTC logits."""

    def __init__(self, model):
        self.values = {}
        model.encoder.register_forward_pre_hook(lambda _m, args: self.values.update(input=args[0][0].clone()))
        model.encoder.register_forward_hook(lambda _m, _a, out: self.values.update(output=out[0][0].clone()))


def build(folder: Path, cmvn: bool):
    """funasr's model for the folder, dither 0 (its default of 1.0 adds random noise), with or without am.mvn.
    Set at construction: AutoModel restores its kwargs (the front end included) from a copy before each call."""
    frontend_conf = {"dither": 0.0} if cmvn else {"dither": 0.0, "cmvn_file": None}
    return AutoModel(model=str(folder), device="cpu", disable_update=True, ncpu=2, frontend_conf=frontend_conf)


def run(references, captures, wave: np.ndarray, variant: str) -> dict:
    language, itn, cmvn = VARIANTS[variant]
    reference, capture = references[cmvn], captures[cmvn]
    result = reference.generate(input=wave, language=language, use_itn=itn, disable_pbar=True)
    frontend = reference.kwargs["frontend"]
    assert frontend.dither == 0.0 and (frontend.cmvn is not None) == cmvn, "the front end as asked"
    encoder_out = capture.values["output"]
    with torch.no_grad():
        logprobs = reference.model.ctc.log_softmax(encoder_out[None])[0]
    best = logprobs.argmax(-1)
    collapsed = torch.unique_consecutive(best)
    ids = collapsed[collapsed != 0].numpy().astype(np.int32)
    text = result[0]["text"]
    decoded = reference.kwargs["tokenizer"].decode(ids.tolist())
    assert decoded == text, "the collapse here is funasr's own"
    return {
        "input": capture.values["input"].numpy(),
        "output": encoder_out.numpy(),
        "logprobs": logprobs.numpy(),
        "argmax": best.numpy().astype(np.int32),
        "ids": ids,
        "text": text,
    }


def golden(reference, capture, wave: np.ndarray, variants, size: str, whole: bool) -> dict:
    out = {}
    for variant in variants:
        got = run(reference, capture, wave, variant)
        out["n_frames"] = np.int32(got["input"].shape[0] - 4)
        out[f"{variant}_ids"], out[f"{variant}_text"], out[f"{variant}_argmax"] = (
            got["ids"],
            np.array(got["text"]),
            got["argmax"],
        )
        if variant in (variants[0], "auto_noitn_nocmvn"):
            prefix = "" if variant == variants[0] else "nocmvn_"
            n = got["input"].shape[0]
            picked = np.arange(n, dtype=np.int32) if whole else rows(n)
            out[f"{prefix}rows"] = picked
            out[f"{prefix}features"] = got["input"][picked]
            out[f"{prefix}encoder"] = got["output"][picked]
            logprobs = got["logprobs"][picked]
            out[f"{prefix}logprobs"] = logprobs if size == "tiny" else logprobs[:, :REAL_COLUMNS]
        tags = re.findall(r"<\|[^|]+\|>", got["text"])
        print(f"  {variant}: {len(got['ids'])} ids {got['ids'][:6].tolist()}... tags {tags[:4]}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="store_true", help="also the real-size configuration (short, joined40)")
    parser.add_argument("--clips", nargs="+", default=None, help="only these tiny clips (default: all)")
    args = parser.parse_args()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    audio = clips()
    configs = [("tiny", tiny_sensevoice_config(), args.clips or list(audio))]
    configs += [("real", real_sensevoice_config(), ["short", "joined40"])] if args.real else []
    for size, config, names in configs:
        with tempfile.TemporaryDirectory() as tmp:
            folder = write_random_sensevoice(Path(tmp) / size, config, seed=0)
            reference = {cmvn: build(folder, cmvn) for cmvn in (True, False)}
            capture = {cmvn: Capture(model.model) for cmvn, model in reference.items()}
            for name in names:
                print(f"{size} {name}")
                variants = list(VARIANTS) if name == "short" else list(FEW)
                whole = size == "tiny" and name == "short"
                np.savez_compressed(
                    OUT_DIR / f"{size}_{name}.npz", **golden(reference, capture, audio[name], variants, size, whole)
                )


if __name__ == "__main__":
    main()
