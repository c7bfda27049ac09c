"""Regenerate the Fun-ASR-Nano golden fixtures from the official transformers implementation. DEV ONLY.

.venv-funasr-ref/bin/python -m scripts.make_funasr_goldens [--real] [--clips joined40 ...]
(set-up: tests/fixtures/funasr/README.md; the venv is git-ignored, torch never enters the package)

random_funasr.write_random_funasr(tiny_funasr_config(), seed 0) -> temporary "-hf" folder
-> FunAsrNanoProcessor + FunAsrNanoForConditionalGeneration (float32, CPU, eval)
-> tests/fixtures/funasr/tiny_<clip>.npz for the clips below:
     features_rows + features (rows of input_features [T, 560]), embeddings_rows + embeddings
     (rows of get_audio_features(...).pooler_output [T, hidden]), n_frames, all_features (short only),
     for each prompt variant <v>: <v>_prompt_ids, <v>_tokens (greedy, max_new_tokens 24, EOS kept), <v>_text
--real: the same for the short clip on the real-size configuration -> real_short.npz (slow: 1.7 GB).
"""

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import torch
from transformers import AutoProcessor, FunAsrNanoForConditionalGeneration

from mlx_qwen3asr.testing.random_funasr import real_funasr_config, tiny_funasr_config, write_random_funasr
from scripts.golden_clips import clips, rows

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "tests/fixtures/funasr"
MAX_NEW_TOKENS = 24
# Prompt variants: name -> apply_transcription_request keyword arguments.
VARIANTS = {
    "plain": {},
    "english": {"language": "en"},
    "chinese": {"language": "zh"},
    "japanese": {"language": "ja"},
    "context": {"prompt": "Names: Qwen, MLX, Zürich."},
    "keywords": {"keywords": ["Qwen", "MLX"]},
    "all": {"prompt": "会议记录", "keywords": ["通义", "Fun-ASR"], "language": "zh"},
}
SHORT_VARIANTS = ("plain", "english")  # what the other clips are decoded with
# The 40 s clip is one pass for the official (under its 2048-frame limit): with hotwords too.
CLIP_VARIANTS = {"joined40": ("plain", "english", "keywords")}


def golden(processor, model, wave: np.ndarray, variants, full_features: bool = False) -> dict:
    out = {}
    for name in variants:
        inputs = processor.apply_transcription_request(audio=wave, **VARIANTS[name])
        if "features" not in out:
            features = inputs["input_features"][0].numpy()
            with torch.no_grad():
                embeddings = model.get_audio_features(inputs["input_features"], inputs["input_features_mask"])
            embeddings = embeddings.pooler_output.numpy()
            out["n_frames"] = np.int32(features.shape[0])
            out["features_rows"], out["embeddings_rows"] = rows(features.shape[0]), rows(embeddings.shape[0])
            out["features"] = features[out["features_rows"]]
            if full_features:  # the encoder's exact input, to hold it to round-off apart from the front end
                out["all_features"] = features
            out["embeddings"] = embeddings[out["embeddings_rows"]]
        with torch.no_grad():
            generated = model.generate(**inputs, max_new_tokens=MAX_NEW_TOKENS, do_sample=False)
        prompt = inputs["input_ids"][0]
        tokens = generated[0, prompt.shape[0] :].tolist()
        out[f"{name}_prompt_ids"] = prompt.numpy().astype(np.int32)
        out[f"{name}_tokens"] = np.array(tokens, np.int32)
        out[f"{name}_text"] = np.array(processor.decode(tokens, skip_special_tokens=True))
        print(f"  {name}: {len(prompt)} prompt ids, tokens {tokens[:8]}...")
    return out


def load_reference(folder: Path):
    processor = AutoProcessor.from_pretrained(folder)
    model, info = FunAsrNanoForConditionalGeneration.from_pretrained(
        folder, dtype=torch.float32, output_loading_info=True
    )
    problems = {k: v for k, v in info.items() if v}
    assert not problems, f"the random checkpoint does not load cleanly: {problems}"
    return processor, model.eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="store_true", help="also the real-size configuration (short clip)")
    parser.add_argument("--clips", nargs="+", default=None, help="only these tiny clips (default: all)")
    args = parser.parse_args()
    torch.set_num_threads(2)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    audio = clips()
    configs = [("tiny", tiny_funasr_config(), args.clips or list(audio))] + (
        [("real", real_funasr_config(), ["short"])] if args.real else []
    )
    for label, config, names in configs:
        with tempfile.TemporaryDirectory() as tmp:
            folder = write_random_funasr(Path(tmp) / label, config, seed=0)
            processor, model = load_reference(folder)
            for name in names:
                print(f"{label} {name}")
                variants = (
                    list(VARIANTS) if (label, name) == ("tiny", "short") else CLIP_VARIANTS.get(name, SHORT_VARIANTS)
                )
                np.savez_compressed(
                    OUT_DIR / f"{label}_{name}.npz", **golden(processor, model, audio[name], variants, name == "short")
                )
    (OUT_DIR / "variants.json").write_text(json.dumps(VARIANTS, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
