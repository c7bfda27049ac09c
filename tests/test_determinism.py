"""Same input, same bits: features, logits and tokens do not depend on what ran before in the process,
on a reload, on the process, or on which SIMD kernels the BLAS picks for this CPU.

The default BLAS set-up on Linux x86-64 (scripts/env.sh) routes each product to MKL or OpenBLAS
(blas_router.c). It used to keep a small product on the library of the product before, so results
depended on history: on an AVX2-only CPU a second load of the same model gave other bits. MKL picks
its kernels by CPU (`MKL_ENABLE_INSTRUCTIONS=AVX2` makes it choose as on an AVX2-only machine), so the
probe runs under both choices.
"""

import json
import os
import subprocess
import sys

import pytest

PROBE = r"""
import hashlib, json, sys
import mlx.core as mx
import numpy as np
import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.generate import generate_steps

folder = sys.argv[1]

def probe(model):
    mel = mx.random.normal((250, 128), key=mx.random.key(0))
    feats = model.encode(mel)
    ids = mx.array([151644, 8948, 198] + [model.args.audio_token_id] * feats.shape[0] + [151645, 198])
    embeddings = model.embed(ids, feats)
    logits = model(embeddings)[0, -1]
    tokens = list(generate_steps(model, embeddings, model.make_cache(), 12))  # two streams, compiled step
    digest = lambda a: hashlib.sha256(np.array(a).tobytes()).hexdigest()
    return {"features": digest(feats), "logits": digest(logits), "tokens": tokens}

first = probe(mq.load(folder, dtype="float32"))
other = mq.load(folder, dtype="float32")  # other work of other shapes between
mx.eval(other.encode(mx.random.normal((1700, 128), key=mx.random.key(1))))
list(generate_steps(other, other.embed(mx.array(list(range(100, 400)))), other.make_cache(), 5))
again = probe(mq.load(folder, dtype="float32"))
print(json.dumps({"first": first, "again": again}))
"""


def run_probe(folder, **env) -> dict:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kernels", ["as this CPU picks", "as on an AVX2-only CPU"])
def test_the_same_input_gives_the_same_bits_after_a_reload_and_other_work(tiny_checkpoint, kernels):
    env = {"MKL_ENABLE_INSTRUCTIONS": "AVX2"} if "AVX2" in kernels else {}
    result = run_probe(tiny_checkpoint, **env)
    assert result["again"] == result["first"], f"other bits for the same input ({kernels}): {result}"


def test_two_processes_give_the_same_bits(tiny_checkpoint):
    one, two = run_probe(tiny_checkpoint), run_probe(tiny_checkpoint)
    assert one["first"] == two["first"], "a new process gave other bits for the same input"
