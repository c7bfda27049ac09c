"""What the GPU path dispatches, counted on any machine: the model as written against the GPU path.

    python -m scripts.bench.dispatches [--layers 28] [--runs 20] [--json out.json]

    random 0.6B-sized float16 models (mlx_qwen3asr/testing/dispatches.py), each side built with one and
    with two layers -> the graphs of one decode step and of a 10 s and a 60 s encode, exported, counted
    per layer: dispatches (kernels a GPU launches) and all primitives; whether an encode waits for the
    device inside; the attention calls' form
    -> the host's time to build one decode step of --layers layers (MLX's fused operations standing in
       as one node each, as on a GPU; median of --runs), the part of a token's time that grows with the
       number of operations

On the CPU the model as written evaluates its conv stem between batches while the graph is built
(float16 convolutions, slow there): the "before" encodes take minutes. On a GPU the same counts hold;
the host times are that machine's.
"""

import argparse
import json
import statistics
import time

import mlx.core as mx

from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from mlx_qwen3asr.testing.dispatches import (
    decode_step_graph,
    encode_graph,
    fused_ops_as_one,
    held_cache,
    per_layer,
    sized_model,
)
from scripts.bench.common import console, machine

SIDES = {"as written": False, "GPU path": True}


def layer_counts(gpu: bool) -> dict:
    """Per layer: dispatches and primitives of a decode step and of 10 s / 60 s encodes, host waits."""
    out = {}
    stages = {"decode step": decode_step_graph}
    stages.update({f"encode {s} s": (lambda model, s=s: encode_graph(model, s)) for s in (10, 60)})
    for stage, count in stages.items():
        one, two, calls = per_layer(count, gpu)
        out[stage] = {
            "dispatches": two.dispatches - one.dispatches,
            "primitives": two.primitives - one.primitives,
            "attention calls": len(calls) // 2,
            "fused": all(c.fused for c in calls),
        }
        if stage != "decode step":
            out[stage]["waits inside"] = two.names["StopGradient"] == 0
    return out


def host_build_ms(gpu: bool, layers: int, runs: int) -> float:
    """Median milliseconds to build (not run) one decode step of `layers` layers."""
    model = sized_model(layers, 1, gpu)
    embedding = mx.zeros((1, 1, model.args.text.hidden_size), mx.float16)
    step, times = model.decode_step(), []
    with fused_ops_as_one():
        step(embedding, held_cache(model))  # a compiled step traces here
        for _ in range(runs):
            cache = held_cache(model)
            start = time.perf_counter()
            step(embedding, cache)
            times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=28, help="decoder layers of the host-time model (0.6B: 28)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    ensure_fast_blas()  # the BLAS scripts/env.sh preloads (the "before" encodes run on the CPU)
    results = {}
    for side, gpu in SIDES.items():
        results[side] = layer_counts(gpu)
        results[side]["host ms per decode step"] = host_build_ms(gpu, args.layers, args.runs)
        console.print(f"[bold]{side}[/bold]: {json.dumps(results[side], indent=1)}")
    console.print(f"machine: {machine()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), **results}, f, indent=1)


if __name__ == "__main__":
    main()
