"""Regenerate the Paraformer golden fixtures from funasr 1.4.16 (the reference). DEV ONLY.

    /work/.venv-funasr-ref/bin/python -m scripts.make_paraformer_goldens [--real] [--clips short ...]

The reference environment is make_sensevoice_goldens.py's (its docstring has the recipe). Nothing is downloaded:
random_paraformer.write_random_paraformer(config, seed 0) -> a temporary release folder (configuration.json,
config.yaml, model.pt, am.mvn, tokens.json, seg_dict) -> funasr.AutoModel (CPU, ncpu=2, the front end's dither
0: its default of 1.0 is random) -> model.generate(wave) and model.generate(wave, output_timestamp=True), with
hooks on the encoder (its input and output), the predictor (its token rows, count, alphas and fires) and the
decoder (its logits) -> tests/fixtures/paraformer/<size>_<clip>.npz:
    n_frames (LFR frames), rows + features / encoder (the encoder's input and output at those rows; every row for
    the tiny short clip), alphas and fires (whole: T + 1 values, the tail frame last), count (the token rows the
    predictor gives), embed_rows + embeds (those rows), logprobs (the decoder's log-softmax at embed_rows; the
    real size keeps 64 columns), ids (the decoded ids less <blank>, <s>, </s>), text, ts_text and timestamp
    (funasr's output with output_timestamp=True: its words joined by spaces and their [start_ms, end_ms]),
    token_ms (ts_prediction_lfr6_standard's times of each token before the words are made), samples (the
    clip's length: the tail clip is the long clip cut there).
The tail clip: the first cut of the long clip (from 4 s, every 0.06 s) whose last fire is the tail frame, that is
the clip ends past .55 of a token and tail_threshold 0.45 completes it; the script asserts that fire.
tests/fixtures/paraformer/postprocess.json: funasr's sentence_postprocess on made-up token lists, with and
without times; cif.npz: cif_v1 and cif_wo_hidden on made-up alphas (whole numbers reached exactly included).
--real: the real-size configuration (8404 tokens, 50 + 16 layers; 0.9 GB model.pt).
"""

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import torch
from funasr import AutoModel
from funasr.models.paraformer.cif_predictor import cif_v1, cif_wo_hidden
from funasr.utils.postprocess_utils import sentence_postprocess
from funasr.utils.timestamp_tools import ts_prediction_lfr6_standard

from mlx_qwen3asr.testing.random_paraformer import (
    real_paraformer_config,
    tiny_paraformer_config,
    write_random_paraformer,
)
from scripts.golden_clips import clips, rows

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "tests/fixtures/paraformer"
REAL_COLUMNS = 64
SPECIAL = (0, 1, 2)
TAIL_FROM, TAIL_STEP = 4.0, 0.06


class Capture:
    def __init__(self, model):
        self.values = {}
        model.encoder.register_forward_pre_hook(lambda _m, args: self.values.update(input=args[0][0].clone()))
        model.encoder.register_forward_hook(lambda _m, _a, out: self.values.update(output=out[0][0].clone()))
        model.predictor.register_forward_hook(lambda _m, _a, out: self.values.update(predictor=out))
        model.decoder.register_forward_hook(lambda _m, _a, out: self.values.update(logits=out[0][0].clone()))


def build(folder: Path):
    return AutoModel(model=str(folder), device="cpu", disable_update=True, ncpu=2, frontend_conf={"dither": 0.0})


def run(reference, capture, wave: np.ndarray) -> dict:
    capture.values.clear()
    plain = reference.generate(input=wave, disable_pbar=True)[0]
    embeds, count, alphas, fires = capture.values["predictor"]
    logits = capture.values.get("logits")
    logprobs = torch.log_softmax(logits, -1) if logits is not None else torch.zeros((0, 1))
    ids = [int(i) for i in logprobs.argmax(-1) if int(i) not in SPECIAL]
    tokens = reference.kwargs["tokenizer"].ids2tokens(ids)
    _, token_ms = ts_prediction_lfr6_standard(fires[0].clone(), alphas[0].clone(), list(tokens), upsample_rate=1)
    timed = reference.generate(input=wave, disable_pbar=True, output_timestamp=True)[0]
    return {
        "input": capture.values["input"].numpy(),
        "output": capture.values["output"].numpy(),
        "embeds": embeds[0].numpy(),
        "count": int(count[0]),
        "alphas": alphas[0].numpy(),
        "fires": fires[0].numpy(),
        "logprobs": logprobs.numpy(),
        "ids": np.array(ids, np.int32),
        "text": plain["text"],
        "ts_text": timed["text"],
        "timestamp": np.array(timed.get("timestamp", []), np.int64).reshape(-1, 2),
        "token_ms": np.array(token_ms, np.int64).reshape(-1, 2),
    }


def golden(got: dict, wave: np.ndarray, size: str, whole: bool) -> dict:
    n = got["input"].shape[0]
    picked = np.arange(n, dtype=np.int32) if whole else rows(n)
    embed_rows = np.arange(got["count"], dtype=np.int32) if whole else rows(got["count"])
    logprobs = got["logprobs"][embed_rows]
    return {
        "samples": np.int64(len(wave)),
        "n_frames": np.int32(n),
        "rows": picked,
        "features": got["input"][picked],
        "encoder": got["output"][picked],
        "alphas": got["alphas"],
        "fires": got["fires"],
        "count": np.int32(got["count"]),
        "embed_rows": embed_rows,
        "embeds": got["embeds"][embed_rows],
        "logprobs": logprobs if size == "tiny" else logprobs[:, :REAL_COLUMNS],
        **{key: got[key] for key in ("ids", "timestamp", "token_ms")},
        **{key: np.array(got[key]) for key in ("text", "ts_text")},
    }


def tail_clip(reference, capture, long: np.ndarray) -> tuple[np.ndarray, dict]:
    """The first cut of `long` whose last fire is the tail frame (tail_threshold completes a token)."""
    for seconds in np.arange(TAIL_FROM, len(long) / 16000, TAIL_STEP):
        wave = long[: int(round(seconds * 16000))]
        got = run(reference, capture, wave)
        without_tail = int(np.floor(np.sum(got["alphas"][:-1], dtype=np.float64)))
        if got["fires"][-1] >= 1.0:
            assert got["count"] == without_tail + 1, "the tail fire adds a token"
            print(f"  tail fire at {seconds:.2f} s: fires[-1] = {got['fires'][-1]:.3f}, {got['count']} tokens")
            return wave, got
    raise AssertionError("no cut of the long clip fires at its tail")


def postprocess_cases() -> list[dict]:
    lists = [
        ["你", "好", "世", "界"],
        ["hello", "world", "qu@@", "ick", "fox"],
        ["你", "hello", "好", "bro@@", "wn", "世"],
        ["a", "b", "c", "你", "i", "ok", "x", "y"],
        ["<s>", "1", "2", "你", "<unk>", "好", "</s>"],
        ["0abc", "it's", "@@", "界", "mlx", "a"],
        ["hello", "你", "a", "b", "world"],
        ["q@@", "u@@", "ick"],
        [],
    ]
    out = []
    for tokens in lists:
        times = [[60 * i, 60 * i + 50] for i in range(len(tokens))]
        text, words = sentence_postprocess(list(tokens))
        ts_text, ts, ts_words = sentence_postprocess(list(tokens), [list(t) for t in times])
        out.append({"tokens": tokens, "times": times, "text": text, "words": words, "ts_text": ts_text, "ts": ts})
    return out


def cif_cases() -> dict:
    rng = np.random.default_rng(7)
    alphas = rng.uniform(0.0, 0.9, (3, 200)).astype(np.float32)
    alphas[1, :8] = [0.5, 0.5, 0.25, 0.75, 1.0, 0.125, 0.875, 0.3]  # whole numbers reached exactly
    alphas[2] = np.float32(0.1)  # ten steps of float32 0.1 fall short of or pass 1.0 by round-off
    hidden = rng.standard_normal((3, 200, 16)).astype(np.float32)
    out = {"alphas": alphas, "hidden": hidden}
    for b in range(3):
        embeds, fires = cif_v1(torch.from_numpy(hidden[b : b + 1]), torch.from_numpy(alphas[b : b + 1]), 1.0)
        out[f"embeds{b}"], out[f"fires{b}"] = embeds[0].numpy(), fires[0].numpy()
        out[f"loop{b}"] = cif_wo_hidden(torch.from_numpy(alphas[b : b + 1].copy()), 1.0 - 1e-4)[0].numpy()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="store_true", help="also the real-size configuration")
    parser.add_argument("--clips", nargs="+", default=None, help="only these tiny clips (default: all, tail too)")
    args = parser.parse_args()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / "postprocess.json").write_text(json.dumps(postprocess_cases(), ensure_ascii=False, indent=1) + "\n")
    np.savez_compressed(OUT_DIR / "cif.npz", **cif_cases())
    audio = clips()
    names = args.clips or [*audio, "tail"]
    configs = [("tiny", tiny_paraformer_config(), names)]
    configs += (
        [("real", real_paraformer_config(), ["short", "exact", "noise", "joined40", "tail"])] if args.real else []
    )
    for size, config, wanted in configs:
        with tempfile.TemporaryDirectory() as tmp:
            folder = write_random_paraformer(Path(tmp) / size, config, seed=0)
            reference = build(folder)
            capture = Capture(reference.model)
            for name in wanted:
                print(f"{size} {name}")
                if name == "tail":
                    wave, got = tail_clip(reference, capture, audio["long"])
                else:
                    wave, got = audio[name], run(reference, capture, audio[name])
                print(f"  {got['count']} tokens, ids {got['ids'][:8].tolist()}..., text {got['text'][:30]!r}")
                whole = size == "tiny" and name == "short"
                np.savez_compressed(OUT_DIR / f"{size}_{name}.npz", **golden(got, wave, size, whole))


if __name__ == "__main__":
    main()
