"""Speed benchmark: our pipeline against the machine's limit and the official implementation.

    random-weight checkpoint with the real 0.6B config.json (built once in --cache-dir)
    -> per dtype: front end + encoder (10 s, 60 s, 10 min with --long), prefill of a 10 s clip's
       prompt, decode ms/token over a fixed count (EOS ignored), transcribe() of a 10 s clip
    -> the limit: the same weights' bare matmuls in one graph (decode step, prefill, encoder with
       its conv stem as GEMMs); our time / that time = overhead factor
    -> the official implementation (--official-python, a torch + qwen-asr environment) in a
       subprocess on the same checkpoint, as ratios
    -> a rich table and a JSON file (--json)

Every time is the median of --runs runs after --warmup runs. On a shared machine only the ratios
measured side by side in one run mean much. `--quick` uses the tiny test config and small sizes.
On Linux preload OpenBLAS (LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libopenblas.so.0): the mlx[cpu]
wheel links a reference BLAS that is ~60x slower.
"""

import argparse
import json
import platform
import resource
import statistics
import subprocess
import time
from pathlib import Path
from typing import Callable, Optional

import mlx.core as mx
import numpy as np
from rich.console import Console
from rich.table import Table

import mlx_qwen3asr as mq
from mlx_qwen3asr import encoder as encoder_module
from mlx_qwen3asr.features import log_mel_spectrogram
from mlx_qwen3asr.generate import generate_steps
from mlx_qwen3asr.random_checkpoint import tiny_config, write_random_checkpoint
from mlx_qwen3asr.tokenizer import build_prompt

ROOT = Path(__file__).resolve().parent.parent
REAL_CONFIG = ROOT / "tests" / "fixtures" / "qwen3-asr-0.6b" / "config.json"
SAMPLE_RATE = 16000
BLAS_NAMES = ("openblas", "libblas", "libcblas", "accelerate", "mkl", "blis")
TARGETS = {"decode": 1.1, "prefill": 1.2, "encoder": 1.3}
console = Console(width=150)


def median_time(fn: Callable[[], object], runs: int, warmup: int) -> float:
    """Median wall time of fn() (its result evaluated) over runs, after warmup untimed calls."""
    for _ in range(warmup):
        mx.eval(fn())
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        mx.eval(fn())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def blas_libraries() -> list[str]:
    """BLAS libraries mapped into this process, numpy's own excluded (a preloaded one wins over mlx's)."""
    mx.eval(mx.ones((8, 8)) @ mx.ones((8, 8)))
    libs = set()
    for line in Path("/proc/self/maps").read_text().splitlines() if Path("/proc/self/maps").exists() else []:
        path = line.split()[-1]
        if any(name in path.lower() for name in BLAS_NAMES) and "numpy" not in path:
            libs.add(path)
    return sorted(libs)


def blas_note(libs: list[str]) -> Optional[str]:
    """A warning when MLX on Linux runs on the reference (netlib) BLAS."""
    if platform.system() != "Linux" or mx.default_device() != mx.cpu:
        return None
    if any(name in lib.lower() for lib in libs for name in ("openblas", "mkl", "blis")):
        return None
    return (
        "MLX is using the reference BLAS (~4 GFLOP/s): install libopenblas0-pthread and run with "
        "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libopenblas.so.0"
    )


def ensure_checkpoint(cache_dir: Path, quick: bool) -> Path:
    """The random-weight checkpoint (real 0.6B config, or the tiny test config with --quick)."""
    folder = cache_dir / ("qwen3-asr-tiny-random" if quick else "qwen3-asr-0.6b-random")
    if not (folder / "config.json").exists():
        config = tiny_config() if quick else json.loads(REAL_CONFIG.read_text())
        console.print(f"writing random checkpoint {folder}")
        write_random_checkpoint(folder, config, seed=0)
    return folder


def clip(seconds: float) -> np.ndarray:
    """Deterministic noise (the weights are random, so the content does not matter)."""
    rng = np.random.default_rng(0)
    return (0.1 * rng.standard_normal(int(seconds * SAMPLE_RATE))).astype(np.float32)


def encode(model, wave: np.ndarray) -> mx.array:
    return model.encode(log_mel_spectrogram(wave).astype(model.dtype))


def prompt_embeddings(model, seconds: float) -> mx.array:
    features = encode(model, clip(seconds))
    prompt = build_prompt(model.tokenizer, features.shape[0])
    embeddings = model.embed(mx.array(prompt), features)
    mx.eval(embeddings)
    return embeddings


def decode_seconds_per_token(model, embeddings: mx.array, n_tokens: int) -> float:
    """Time from the first token (prefill done) to the last of n_tokens more, per token."""
    steps = generate_steps(model, embeddings, model.make_cache(), n_tokens + 1)
    next(steps)
    start = time.perf_counter()
    for _ in steps:
        pass
    return (time.perf_counter() - start) / n_tokens


def bench_ours(model, args: argparse.Namespace) -> dict:
    """Encoder per length, prefill, decode, transcribe: our pipeline's times in seconds."""
    runs, warmup = args.runs, args.warmup
    out: dict = {"encoder": {}}
    for seconds in args.seconds:
        wave = clip(seconds)
        long_runs = runs if seconds <= 60 else 1
        out["encoder"][f"{seconds:g}"] = median_time(lambda: encode(model, wave), long_runs, min(warmup, long_runs))
    embeddings = prompt_embeddings(model, args.prompt_seconds)
    out["prefill_tokens"] = int(embeddings.shape[1])
    out["prefill"] = median_time(lambda: model(embeddings, model.make_cache()), runs, warmup)
    decode = [decode_seconds_per_token(model, embeddings, args.decode_tokens) for _ in range(runs + warmup)]
    out["decode_ms_per_token"] = 1000 * statistics.median(decode[warmup:])
    wave = clip(args.prompt_seconds)
    out["transcribe"] = median_time(
        lambda: mq.transcribe(wave, model, max_new_tokens=args.decode_tokens) and mx.array(0), runs, warmup
    )
    return out


def bare_time(pairs: list[tuple[mx.array, mx.array]], runs: int, warmup: int) -> float:
    """x @ W.T for every (x, W), all in one graph: the matmul work alone."""
    mx.eval([p for pair in pairs for p in pair])
    return median_time(lambda: [x @ w.T for x, w in pairs], runs, warmup)


def decoder_pairs(model, n_tokens: int) -> list[tuple[mx.array, mx.array]]:
    """The linears of n_tokens through the decoder plus the tied LM head for one position."""
    text = model.args.text
    dtype = model.dtype
    x_h = mx.random.normal((n_tokens, text.hidden_size)).astype(dtype)
    x_o = mx.random.normal((n_tokens, text.num_attention_heads * text.head_dim)).astype(dtype)
    x_i = mx.random.normal((n_tokens, text.intermediate_size)).astype(dtype)
    pairs = []
    for layer in model.model.layers:
        attn, mlp = layer.self_attn, layer.mlp
        pairs += [(x_h, attn.q_proj.weight), (x_h, attn.k_proj.weight), (x_h, attn.v_proj.weight)]
        pairs += [(x_o, attn.o_proj.weight), (x_h, mlp.gate_proj.weight), (x_h, mlp.up_proj.weight)]
        pairs += [(x_i, mlp.down_proj.weight)]
    return pairs + [(x_h[-1:], model.model.embed_tokens.weight)]


def encoder_pairs(model, seconds: float) -> list[tuple[mx.array, mx.array]]:
    """The encoder's linears for `seconds` of audio, and its conv stem as im2col GEMMs."""
    tower, args = model.audio_tower, model.audio_tower.args
    frames = int(seconds * 100)
    chunks = -(-frames // args.chunk_frames)
    n_tokens = encoder_module.n_audio_tokens(frames, args.chunk_frames, args.tokens_per_chunk)
    rand = lambda *shape: mx.random.normal(shape).astype(model.dtype)  # noqa: E731
    pairs, height, width, channels_in = [], args.num_mel_bins, args.chunk_frames, 1
    for conv in (tower.conv2d1, tower.conv2d2, tower.conv2d3):
        height, width = (height - 1) // 2 + 1, (width - 1) // 2 + 1
        pairs.append((rand(chunks * height * width, 9 * channels_in), conv.weight.reshape(conv.weight.shape[0], -1)))
        channels_in = conv.weight.shape[0]
    pairs.append((rand(chunks * width, tower.conv_out.weight.shape[1]), tower.conv_out.weight))
    x, x_ffn = rand(n_tokens, args.d_model), rand(n_tokens, args.encoder_ffn_dim)
    for layer in tower.layers:
        attn = layer.self_attn
        pairs += [(x, attn.q_proj.weight), (x, attn.k_proj.weight), (x, attn.v_proj.weight)]
        pairs += [(x, attn.out_proj.weight), (x, layer.fc1.weight), (x_ffn, layer.fc2.weight)]
    return pairs + [(x, tower.proj1.weight), (x, tower.proj2.weight)]


def bench_limits(model, args: argparse.Namespace, prefill_tokens: int) -> dict:
    runs, warmup = args.runs, args.warmup
    return {
        "decode_ms_per_token": 1000 * bare_time(decoder_pairs(model, 1), runs, warmup),
        "prefill": bare_time(decoder_pairs(model, prefill_tokens), runs, warmup),
        "encoder": bare_time(encoder_pairs(model, args.prompt_seconds), runs, warmup),
    }


def run_official(python: Optional[str], checkpoint: Path, args: argparse.Namespace) -> Optional[dict]:
    """The official implementation's times, from scripts/bench_official.py in its own environment."""
    if not python:
        console.print("note: official implementation skipped (pass --official-python PATH)")
        return None
    check = "import importlib.util, torch; assert importlib.util.find_spec('qwen_asr')"
    probe = subprocess.run([python, "-c", check], capture_output=True, text=True)
    if probe.returncode != 0:
        console.print(f"note: official implementation skipped: {python} cannot import torch + qwen_asr")
        return None
    command = [python, str(ROOT / "scripts" / "bench_official.py"), str(checkpoint), "--runs", str(args.runs),
               "--warmup", str(args.warmup), "--decode-tokens", str(args.decode_tokens), "--seconds"]
    command += [f"{s:g}" for s in args.seconds if s <= 60]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def memory_mb() -> dict:
    return {
        "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "mlx_peak_mb": mx.get_peak_memory() / 1e6,
    }


def bench_dtype(folder: Path, dtype: str, args: argparse.Namespace) -> dict:
    mx.reset_peak_memory()
    model = mq.load(folder, dtype=dtype)
    ours = bench_ours(model, args)
    ours["limit"] = bench_limits(model, args, ours["prefill_tokens"])
    ours["overhead"] = {
        "decode": ours["decode_ms_per_token"] / ours["limit"]["decode_ms_per_token"],
        "prefill": ours["prefill"] / ours["limit"]["prefill"],
        "encoder": ours["encoder"][f"{args.prompt_seconds:g}"] / ours["limit"]["encoder"],
    }
    ours["encoder_per_audio_second"] = {k: v / float(k) for k, v in ours["encoder"].items()}
    ours["memory"] = memory_mb()
    return ours


def ratio(a: Optional[float], b: Optional[float]) -> str:
    return f"{a / b:.2f}x" if a and b else "-"


def add_rows(table: Table, dtype: str, ours: dict, official: Optional[dict]) -> None:
    """One block of rows per dtype: time, the limit, overhead vs target, official and its ratio."""
    limit, over = ours["limit"], ours["overhead"]
    off = official if dtype == "float32" and official else {}
    base = min(ours["encoder_per_audio_second"].values())
    for key, secs in ours["encoder"].items():
        per_second = ours["encoder_per_audio_second"][key]
        is_prompt = key == next(iter(ours["encoder"]))
        official_s = off.get("encoder", {}).get(key)
        table.add_row(
            dtype, f"front end + encoder {key} s", f"{secs * 1000:.0f} ms",
            f"{limit['encoder'] * 1000:.0f} ms" if is_prompt else f"{per_second / base:.2f}x per audio s",
            f"{over['encoder']:.2f}x (≤{TARGETS['encoder']})" if is_prompt else "",
            f"{official_s * 1000:.0f} ms" if official_s else "-", ratio(official_s, secs),
        )
    table.add_row(
        dtype, f"prefill ({ours['prefill_tokens']} tokens)", f"{ours['prefill'] * 1000:.0f} ms",
        f"{limit['prefill'] * 1000:.0f} ms", f"{over['prefill']:.2f}x (≤{TARGETS['prefill']})",
        f"{off['prefill'] * 1000:.0f} ms" if off else "-", ratio(off.get("prefill"), ours["prefill"]),
    )
    table.add_row(
        dtype, "decode per token", f"{ours['decode_ms_per_token']:.1f} ms",
        f"{limit['decode_ms_per_token']:.1f} ms", f"{over['decode']:.2f}x (≤{TARGETS['decode']})",
        f"{off['decode_ms_per_token']:.1f} ms" if off else "-",
        ratio(off.get("decode_ms_per_token"), ours["decode_ms_per_token"]),
    )
    table.add_row(dtype, "transcribe 10 s clip", f"{ours['transcribe'] * 1000:.0f} ms", "", "", "", "")
    mem = ours["memory"]
    table.add_row(
        dtype, "peak memory", f"RSS {mem['rss_peak_mb']:.0f} MB, MLX {mem['mlx_peak_mb']:.0f} MB", "", "",
        f"RSS {off['rss_peak_mb']:.0f} MB" if off else "-", "",
    )


def print_report(results: dict) -> None:
    table = Table(title=f"mlx-qwen3asr speed: {results['checkpoint_config']} config, random weights")
    for column in ("dtype", "stage", "ours", "the limit (bare matmuls)", "overhead (target)", "official", "official / ours"):
        table.add_column(column)
    for dtype, ours in results["dtypes"].items():
        add_rows(table, dtype, ours, results["official"])
    console.print(table)
    console.print(f"BLAS: {', '.join(results['blas']) or 'none found in /proc/self/maps'}")
    for note in results["notes"]:
        console.print(f"[yellow]note:[/yellow] {note}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny config and sizes: seconds, for CI")
    parser.add_argument("--long", action="store_true", help="also encode 10 minutes of audio (one run)")
    parser.add_argument("--model", type=Path, help="checkpoint folder (default: random, in --cache-dir)")
    parser.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "mlx_qwen3asr_bench")
    parser.add_argument("--dtypes", default=None, help="comma list (default: float32 on CPU, +float16 on GPU)")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per measurement (default 5, quick 2)")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--decode-tokens", type=int, default=None, help="default 32, quick 8")
    parser.add_argument("--official-python", help="python of an environment with torch + qwen-asr")
    parser.add_argument("--json", type=Path, default=Path("bench.json"))
    args = parser.parse_args()
    args.runs = args.runs or (2 if args.quick else 5)
    args.decode_tokens = args.decode_tokens or (8 if args.quick else 32)
    args.prompt_seconds = 10.0
    args.seconds = [10.0, 20.0] if args.quick else [10.0, 60.0] + ([600.0] if args.long else [])
    return args


def chosen_dtypes(args: argparse.Namespace, notes: list[str]) -> list[str]:
    if args.dtypes:
        return args.dtypes.split(",")
    if mx.default_device() == mx.cpu:
        notes.append("float16/bfloat16 skipped on the CPU backend (unoptimised kernels); --dtypes to force")
        return ["float32"]
    return ["float32", "float16"]


def main() -> None:
    args = parse_args()
    folder = args.model or ensure_checkpoint(args.cache_dir, args.quick)
    libs, notes = blas_libraries(), []
    if blas_note(libs):
        notes.append(blas_note(libs))
    if not args.long and not args.quick:
        notes.append("10 min encoder skipped (pass --long)")
    results = {
        "checkpoint": str(folder), "checkpoint_config": "tiny" if args.quick else "0.6B",
        "machine": f"{platform.processor() or platform.machine()}, {platform.system()}, mlx {mx.__version__}, "
        f"device {mx.default_device()}",
        "blas": libs, "notes": notes, "prompt_seconds": args.prompt_seconds, "runs": args.runs,
        "decode_tokens": args.decode_tokens,
        "dtypes": {dtype: bench_dtype(folder, dtype, args) for dtype in chosen_dtypes(args, notes)},
    }
    results["official"] = run_official(args.official_python, folder, args)
    args.json.write_text(json.dumps(results, indent=2))
    print_report(results)
    console.print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
