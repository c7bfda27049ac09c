"""The official Qwen3-ASR implementation's side of scripts/bench.py, run in its own environment.

    python bench_official.py CHECKPOINT --seconds 10 60 --decode-tokens 32 --runs 3 --warmup 1
    -> one JSON object on stdout: {"encoder": {"10": s, ...}, "prefill": s, "prefill_tokens": n,
       "decode_ms_per_token": ms, "rss_peak_mb": mb, "torch": version, "threads": n}

Needs torch + qwen-asr (a dev-only environment); scripts/bench.py starts it as a subprocess so that
torch never enters the project's own process. Timings are medians after warm-up, float32, CPU.
The encoder runs as shipped: on the CPU it attends across the whole clip, not within 104-token
windows (QwenLM/Qwen3-ASR issue 213), which costs it more than windows would above ~8 s.
"""

import argparse
import json
import resource
import statistics
import sys
import time
import types
from typing import Callable

import numpy as np
import torch

SAMPLE_RATE = 16000


def median_time(fn: Callable[[], object], runs: int, warmup: int) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def load_official(checkpoint: str):
    if "nagisa" not in sys.modules:  # imported by the unused forced aligner; needs DyNet
        sys.modules["nagisa"] = types.ModuleType("nagisa")
    import qwen_asr

    asr = qwen_asr.Qwen3ASRModel.from_pretrained(checkpoint, dtype=torch.float32)
    asr.model.eval()
    return asr


def clip(seconds: float) -> np.ndarray:
    rng = np.random.default_rng(0)
    return (0.1 * rng.standard_normal(int(seconds * SAMPLE_RATE))).astype(np.float32)


def inputs_for(asr, wave: np.ndarray) -> dict:
    text = asr._build_text_prompt(context="", force_language=None)
    return asr.processor(text=[text], audio=[wave], return_tensors="pt", padding=True).to(torch.float32)


def front_end_and_encoder(asr, wave: np.ndarray) -> torch.Tensor:
    inputs = inputs_for(asr, wave)
    return asr.model.thinker.get_audio_features(
        inputs["input_features"], feature_attention_mask=inputs["feature_attention_mask"]
    )


def prompt_embeddings(asr, inputs: dict) -> torch.Tensor:
    thinker = asr.model.thinker
    features = front_end_and_encoder(asr, clip(10))
    embeds = thinker.get_input_embeddings()(inputs["input_ids"])
    is_audio = inputs["input_ids"][0] == thinker.config.audio_token_id
    embeds[0, is_audio] = features.to(embeds.dtype)
    return embeds


def prefill(asr, embeds: torch.Tensor) -> torch.Tensor:
    """The official prefill: the text model over the prompt, then the LM head over every position."""
    thinker = asr.model.thinker
    hidden = thinker.model(inputs_embeds=embeds, use_cache=True).last_hidden_state
    return thinker.lm_head(hidden)


def generate_fixed(asr, inputs: dict, n_tokens: int) -> None:
    asr.model.generate(**inputs, max_new_tokens=n_tokens, min_new_tokens=n_tokens, do_sample=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--seconds", type=float, nargs="+", default=[10.0, 60.0])
    parser.add_argument("--decode-tokens", type=int, default=32)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    asr = load_official(args.checkpoint)
    result = {"torch": torch.__version__, "threads": args.threads, "encoder": {}}
    with torch.inference_mode():
        for seconds in args.seconds:
            wave = clip(seconds)
            result["encoder"][f"{seconds:g}"] = median_time(
                lambda: front_end_and_encoder(asr, wave), args.runs, args.warmup
            )
        inputs = inputs_for(asr, clip(10))
        embeds = prompt_embeddings(asr, inputs)
        result["prefill_tokens"] = int(embeds.shape[1])
        result["prefill"] = median_time(lambda: prefill(asr, embeds), args.runs, args.warmup)
        one = median_time(lambda: generate_fixed(asr, inputs, 1), args.runs, args.warmup)
        many = median_time(lambda: generate_fixed(asr, inputs, args.decode_tokens), args.runs, args.warmup)
        result["decode_ms_per_token"] = 1000 * (many - one) / (args.decode_tokens - 1)
    result["rss_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
