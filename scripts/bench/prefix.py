"""Prompt-prefix cache benchmark: a long clip with a 0-, 500- and 2,000-token context, the cache off
and on, interleaved.

    random-weight checkpoint with the real 0.6B config.json (built once in --cache-dir, scripts/bench/common.py), float32
    -> a clip of --seconds of espeak speech (tests/fixtures/audio tiled, 0.5 s pauses between)
       -> its chunks of at most 30 s and their encoder features (once, shared by every run)
    -> per round, per context (the order of off/on alternates from round to round):
       prefill   the decoder's prompt prefill of every chunk, as transcribe runs it: off, each whole
                 prompt on a fresh cache; on, the prompt head once, then each chunk's audio and tail
                 on a copy of it (generate.prefill, PrefixCache)
       end2end   mq.transcribe(clip, context=..., max_new_tokens=--tokens, prefix_cache=on/off)
       identical the end-to-end token ids with the cache on equal those with it off
    -> one table (medians over rounds) and the machine's load before and after

Random weights never stop on their own, so every chunk decodes exactly --tokens tokens; the prefill
is what the context changes. On a shared CPU only ratios measured side by side mean much.
"""

import argparse
import os
import statistics
import time
from pathlib import Path

import mlx.core as mx
import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.audio.split import split_audio
from mlx_qwen3asr.decode.generate import prefill
from mlx_qwen3asr.decode.prefix_cache import PrefixCache
from mlx_qwen3asr.families.recogniser import encode_audios
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from scripts.bench.common import CACHE_DIR, ROOT, random_checkpoint

AUDIO = ROOT / "tests" / "fixtures" / "audio"
CONTEXT_WORDS = (
    "Qwen3-ASR, MLX, DashScope, Tongyi, Zürich, Hangzhou, Alibaba, transformer, encoder, decoder, "
    "attention window, log-mel spectrogram, hotword, forced aligner, rotary embedding, quantization, "
)


def speech_clip(seconds: float) -> np.ndarray:
    pieces, pause, total = [], np.zeros(8000, np.float32), 0
    clips = [mq.load_audio(AUDIO / f"{name}.wav") for name in ("long", "short", "exact")]
    while total < seconds * 16000:
        for clip in clips:
            pieces += [clip, pause]
            total += len(clip) + len(pause)
    return np.concatenate(pieces)[: int(seconds * 16000)]


def context_of(tokenizer, tokens: int) -> str:
    """A hotword-style context of about `tokens` tokens."""
    if tokens == 0:
        return ""
    ids = tokenizer.encode(CONTEXT_WORDS * (tokens // 20 + 2))[:tokens]
    return tokenizer.decode(ids).strip()


def timed(work, *args, **kwargs) -> tuple[float, object]:
    start = time.perf_counter()
    out = work(*args, **kwargs)
    return time.perf_counter() - start, out


def prefill_all(model, prompts: list[mx.array], context: str, cache_on: bool) -> None:
    """Every chunk's prompt prefilled, as transcribe_chunks prefills them."""
    prefixes = PrefixCache(model) if cache_on else None
    for prompt in prompts:
        cache = prefixes.cache(context, prompt_length=prompt.shape[1]) if cache_on else model.make_cache()
        prefill(model, prompt[:, cache[0].offset :], cache)


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def main() -> None:
    ensure_fast_blas()  # the BLAS scripts/env.sh preloads, also when run without it (re-executes once)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="clip length (default 600: 10 minutes)")
    parser.add_argument("--contexts", default="0,500,2000", help="context sizes in tokens")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=8, help="tokens decoded per chunk")
    parser.add_argument("--model", type=Path, help="checkpoint folder (default: random 0.6B in --cache-dir)")
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    parser.add_argument("--quick", action="store_true", help="the tiny test model, a 65 s clip, 0/200 tokens, 1 round")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.contexts, args.rounds, args.tokens = 65.0, "0,200", 1, 4
    print(load_line(), "(before)", flush=True)
    model = mq.load(args.model or random_checkpoint(args.cache_dir, args.quick), dtype="float32")
    clip = speech_clip(args.seconds)
    chunks = [chunk for _, chunk in split_audio(clip, 30.0)]
    features = encode_audios(model, chunks)
    sizes = [int(size) for size in args.contexts.split(",")]
    contexts = {size: context_of(model.tokenizer, size) for size in sizes}
    print(f"{args.seconds:.0f} s clip, {len(chunks)} chunks, {args.tokens} tokens each; contexts "
          + ", ".join(f"{len(model.tokenizer.encode(c))} tokens" for c in contexts.values()), flush=True)  # fmt: skip
    mq.transcribe(clip[:16000], model, max_new_tokens=2)  # warm-up
    results = {(size, on): {"prefill": [], "end2end": [], "tokens": None} for size in sizes for on in (False, True)}
    for round_ in range(args.rounds):
        for size, context in contexts.items():
            prompts = [model.embed(mx.array(model.prompt_ids(f.shape[0], context)), f) for f in features]
            for on in (False, True) if round_ % 2 == 0 else (True, False):
                row = results[(size, on)]
                row["prefill"].append(timed(prefill_all, model, prompts, context, on)[0])
                cache = None if on else PrefixCache.off(model)  # None: one for the call
                options = dict(context=context, max_new_tokens=args.tokens, prefix_cache=cache)
                seconds, result = timed(mq.transcribe, clip, model, **options)
                row["end2end"].append(seconds)
                row["tokens"] = result.token_ids
                print(f"round {round_ + 1} context {size} cache {'on' if on else 'off'}: prefill "
                      f"{row['prefill'][-1]:.1f} s, end to end {seconds:.1f} s", flush=True)  # fmt: skip
    print(
        "\n| context tokens | prefill off | prefill on | end to end off | end to end on | speed-up | identical tokens |"
    )
    print("|---|---|---|---|---|---|---|")
    for size in sizes:
        off, on = results[(size, False)], results[(size, True)]
        p_off, p_on = statistics.median(off["prefill"]), statistics.median(on["prefill"])
        e_off, e_on = statistics.median(off["end2end"]), statistics.median(on["end2end"])
        same = "yes" if off["tokens"] == on["tokens"] else "NO"
        print(
            f"| {size} | {p_off:.2f} s | {p_on:.2f} s | {e_off:.2f} s | {e_on:.2f} s | {e_off / e_on:.2f}x | {same} |"
        )
    print(load_line(), "(after)")


if __name__ == "__main__":
    main()
