"""Memory at the context limit: one short clip transcribed with a context of --tokens tokens (the
documented limit is 10,000), the peak MLX memory and the process's peak RSS printed.

    python -m scripts.bench.long_prompt --model DIR [--tokens 10000] [--layers N] [--block N]

--model: a checkpoint folder (e.g. `python scripts/make_random_checkpoint.py --size 0.6b DIR`: the real
0.6B config, random weights), loaded in float32. --layers N keeps the decoder's first N layers: the
attention peak is one layer's, so a few layers show it at a fraction of the time. --block sets
generate.PREFILL_BLOCK (a huge value: the whole prompt in one pass, as before blocks existed).
"""

import argparse
import os
import time

import mlx.core as mx

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode import generate
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from scripts.bench.prefix import AUDIO, context_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--tokens", type=int, default=10_000)
    parser.add_argument("--layers", type=int, default=None)
    parser.add_argument("--block", type=int, default=None)
    args = parser.parse_args()
    ensure_fast_blas()
    if args.block is not None:
        generate.PREFILL_BLOCK = args.block
    model = mq.load(args.model, dtype="float32")
    if args.layers is not None:
        model.model.layers = model.model.layers[: args.layers]
    context = context_of(model.tokenizer, args.tokens)
    weights = mx.get_active_memory()
    mx.reset_peak_memory()
    started = time.perf_counter()
    result = mq.transcribe(AUDIO / "short.wav", model, context=context, max_new_tokens=1)
    seconds = time.perf_counter() - started
    print(
        f"context {len(model.tokenizer.encode(context))} tokens, {len(model.model.layers)} layers, "
        f"block {getattr(generate, 'PREFILL_BLOCK', 'none (whole prompt)')}: weights {weights / 2**30:.2f} GiB, "
        f"peak MLX {mx.get_peak_memory() / 2**30:.2f} GiB, {seconds:.1f} s, "
        f"tokens {result.token_ids}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
