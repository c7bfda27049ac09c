"""Our pipeline against the official implementation (or against itself: another BLAS, an older commit),
the same work on every side, the sides alternated run by run, the machine's load recorded.

    sides (--sides, comma list): official | ours[@GIT_REV][:BLAS]
      (BLAS: mkl+openblas, openblas, mkl, blis, reference; none: blas.py's choice for this machine)
      -> one long-lived worker process per side (workers/ours.py; workers/official.py in --official-python),
         each loaded once, same checkpoint (random weights, real 0.6B config.json), float32, --threads
    -> per stage, --warmup + --runs rounds, each round one request per side in turn (A B A B ...):
         encoder 10 s, 60 s (log-mel included) | prefill of the 10 s prompt, LM head on the last
         position, then on every position | decode ms/token (official: a bare step loop like ours,
         and its `generate`) | end to end: 10 s clip -> text, exactly --e2e-tokens tokens
       around each request: 1-min load average, /proc/stat busy share, and the share other processes
       took (busy minus the worker's own CPU time)
    -> --busy: all of it under a fixed background load (machine_load.BackgroundLoad)
    -> a table of medians [min-max], each side / the first side (median of the per-round ratios),
       the case (quiet / not quiet / busy) and the load; a JSON file with every measurement

    python -m scripts.bench.vs_official --official-python /tmp/refenv/bin/python
    python -m scripts.bench.vs_official --sides ours:openblas,ours:mkl,ours:blis --busy
    python -m scripts.bench.vs_official --sides ours@main,ours   # before / after a change
    python -m scripts.bench.vs_official --family fun-asr-nano --official-python .venv-funasr-ref/bin/python
      (Fun-ASR-Nano: its real "-hf" config, random weights; the official side is transformers'
       FunAsrNano in workers/official_funasr.py; "log-mel" reads "fbank + LFR" there)
    python -m scripts.bench.vs_official --family sensevoice --official-python /work/.venv-funasr-ref/bin/python
    python -m scripts.bench.vs_official --family paraformer --official-python /work/.venv-funasr-ref/bin/python
      (SenseVoiceSmall, Paraformer-large: their real release configs, random weights; sides ours, official
       (funasr's AutoModel.generate) and qwen3 (our Qwen3-ASR 0.6B on the same clips, decoding 3 tokens per
       second of audio); stages: end to end on 10 s and 60 s, one pass each, and for Paraformer the parts of
       our pass (the CIF next to the encoder); the real time factor of every side is printed under the table;
       the lanes: official_lanes.py)
"""

import argparse
import json
import os
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from rich.table import Table

from mlx_qwen3asr.runtime.blas import THREAD_VARIABLES
from scripts.bench.common import CACHE_DIR, ROOT, console, machine, random_checkpoint
from scripts.bench.machine_load import QUIET_OTHERS, BackgroundLoad, LoadProbe
from scripts.bench.official_lanes import (
    FAMILIES,
    OFFICIAL_WORKERS,
    ONE_PASS,
    Stage,
    checkpoint_writer,
    ours_worker,
    stages,
)
from scripts.bench.sources import ours_environment, source_tree
from scripts.bench.workers.protocol import Worker


@dataclass(eq=False)  # a dict key by identity
class Side:
    label: str
    command: list[str]
    env: dict
    cwd: Path  # the worker runs here: the folder of the package it measures
    official: bool = False
    records: list = field(default_factory=list)


def make_side(spec: str, checkpoint: Path, args: argparse.Namespace) -> Side:
    threads = {name: str(args.threads) for name in THREAD_VARIABLES}
    if spec == "official":
        if not args.official_python:
            raise SystemExit("the official side needs --official-python PATH (a python with torch and qwen-asr)")
        env = {**{k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "PYTHONPATH")}, **threads}
        worker = OFFICIAL_WORKERS.get(args.family, "official")
        command = [args.official_python, "-m", f"scripts.bench.workers.{worker}", str(checkpoint)]
        return Side("official", command + ["--threads", str(args.threads)], env, ROOT, official=True)
    name, _, blas = spec.partition(":")
    name, _, rev = name.partition("@")
    root = source_tree(rev, args.cache_dir) if rev else ROOT
    env = ours_environment(root, blas, {**os.environ, **threads})
    worker = ours_worker(args.family) if name == "ours" else "ours"
    if name == "qwen3":  # our Qwen3-ASR 0.6B on the same clips (the one-pass families' third side)
        checkpoint = random_checkpoint(args.cache_dir, args.quick)
    return Side(spec, [sys.executable, "-m", f"scripts.bench.workers.{worker}", str(checkpoint)], env, root)


def measure_stage(stage: Stage, workers: dict, args: argparse.Namespace) -> None:
    """--warmup + --runs rounds of one request per side, alternating; records kept on each side."""
    sides = [s for s in workers if stage.sides == "all" or s.official == (stage.sides == "official")]
    sides = [s for s in sides if stage.sides != "ours" or s.label.startswith("ours")]
    for round_index in range(args.warmup + args.runs):
        for side in sides:
            probe = LoadProbe()
            probe.start()
            reply = workers[side].measure(stage.request)
            load = probe.stop(reply["cpu_seconds"])
            value = reply.get("seconds", reply.get("ms_per_token"))
            order = sum(len(s.records) for s in workers)  # position in the whole run's sequence
            side.records.append(
                {
                    "order": order,
                    "stage": stage.name,
                    "round": round_index,
                    "warmup": round_index < args.warmup,
                    "value": value,
                    **load,
                    "reply": reply,
                }
            )
            console.print(
                f"  {stage.name:45s} {side.label:22s} {value:9.3f} {stage.unit}  load1 {load['load1']:.1f}"
                f"  others {load['others']:.0%}",
                highlight=False,
            )


def summarize(stage: Stage, sides: list[Side]) -> dict:
    out = {}
    base = None
    for side in sides:
        timed = [r for r in side.records if r["stage"] == stage.name and not r["warmup"]]
        if not timed:
            continue
        values = [r["value"] for r in timed]
        row = {
            "median": statistics.median(values),
            "min": min(values),
            "max": max(values),
            "load1": statistics.median(r["load1"] for r in timed),
            "others": statistics.median(r["others"] for r in timed),
            "values": values,
            "cpu_seconds": statistics.median(r["reply"]["cpu_seconds"] for r in timed),
        }
        if base is None:
            base = {r["round"]: r["value"] for r in timed}
        else:  # per-round ratio: both measured back to back, under the same load
            ratios = [r["value"] / base[r["round"]] for r in timed if r["round"] in base]
            row["ratio_to_first"] = statistics.median(ratios) if ratios else None
        out[side.label] = row
    return out


def case_of(summary: dict, busy: Optional[BackgroundLoad]) -> str:
    others = [row["others"] for rows in summary.values() for row in rows.values()]
    share = statistics.median(others) if others else 0.0
    if busy and busy.workers:
        return f"busy: background load {busy.describe()}; other processes kept {share:.0%} of the cores busy"
    if share < QUIET_OTHERS:
        return f"quiet: other processes kept {share:.0%} of the cores busy"
    return f"NOT quiet: other processes kept {share:.0%} of the cores busy (a shared machine)"


def print_table(results: dict, labels: list[str]) -> None:
    table = Table(title=f"{results['title']}\n{results['case']}")
    table.add_column("stage")
    for i, label in enumerate(labels):
        table.add_column(f"{label}\nmedian [min-max]", justify="right")
        if i:
            table.add_column(f"{label} / {labels[0]}", justify="right")
    table.add_column("load1 / others", justify="right")
    for stage, rows in results["summary"].items():
        if not rows:
            continue
        cells = [stage]
        for i, label in enumerate(labels):
            row = rows.get(label)
            cells.append(f"{row['median']:.4g} [{row['min']:.4g}-{row['max']:.4g}]" if row else "-")
            if i:
                cells.append(f"{row['ratio_to_first']:.2f}x" if row and row.get("ratio_to_first") else "-")
        load1 = statistics.median(row["load1"] for row in rows.values())
        others = statistics.median(row["others"] for row in rows.values())
        table.add_row(*cells, f"{load1:.1f} / {others:.0%}")
    table.add_row(
        "peak RSS (MB)",
        *[f"{results['rss_peak_mb'][label]:.0f}" for label in labels[:1]],
        *[c for label in labels[1:] for c in (f"{results['rss_peak_mb'][label]:.0f}", "")],
        "",
    )
    console.print(table)
    for label, ready in results["sides"].items():
        console.print(f"{label}: {ready}", highlight=False)
    console.print(
        "times in s (decode: ms per token); a ratio above 1: the first side is faster; load1: 1-min load "
        "average, others: share of the cores other processes kept busy (medians)",
        highlight=False,
    )


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--sides",
        default=None,
        help="comma list, the first is the reference (default ours,official; sensevoice, paraformer: +qwen3)",
    )
    parser.add_argument("--family", choices=FAMILIES, default="qwen3-asr")
    parser.add_argument("--official-python", help="python of an environment with torch + qwen-asr")
    parser.add_argument("--quick", action="store_true", help="the tiny test config, few tokens: seconds, for CI")
    parser.add_argument("--busy", action="store_true", help="measure under a fixed background load")
    parser.add_argument("--busy-workers", type=int, default=2)
    parser.add_argument("--busy-duty", type=float, default=0.75, help="share of a core each busy worker burns")
    parser.add_argument("--threads", type=int, default=2, help="BLAS / torch threads on every side")
    parser.add_argument("--runs", type=int, default=None, help="timed rounds per stage (default 5, quick 2)")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--decode-tokens", type=int, default=None, help="default 32, quick 8")
    parser.add_argument("--e2e-tokens", type=int, default=None, help="default 64, quick 8")
    parser.add_argument(
        "--stages",
        help="comma list of encoder10, encoder60, prefill, prefill_all, decode, decode_generate, e2e (default: all)",
    )
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    parser.add_argument("--json", type=Path, default=Path("bench_vs_official.json"))
    args = parser.parse_args(argv)
    args.sides = args.sides or ("ours,official,qwen3" if args.family in ONE_PASS else "ours,official")
    args.runs = args.runs or (2 if args.quick else 5)
    args.decode_tokens = args.decode_tokens or (8 if args.quick else 32)
    args.e2e_tokens = args.e2e_tokens or (8 if args.quick else 64)
    args.seconds = [10.0, 60.0]
    return args


def unique_labels(sides: list[Side]) -> None:
    seen: dict[str, int] = {}
    for side in sides:
        seen[side.label] = seen.get(side.label, 0) + 1
        if seen[side.label] > 1:
            side.label = f"{side.label}#{seen[side.label]}"


def run(args: argparse.Namespace) -> dict:
    checkpoint = checkpoint_writer(args.family)(args.cache_dir, args.quick)
    sides = [make_side(spec.strip(), checkpoint, args) for spec in args.sides.split(",")]
    unique_labels(sides)
    plan = [s for s in stages(args) if not args.stages or s.key in args.stages.split(",")]
    workers = {}
    try:
        for side in sides:
            workers[side] = Worker(side.label, side.command, side.env, side.cwd)
        ready = {side.label: workers[side].ready for side in sides}
        tokens = {r["prefill_tokens"] for r in ready.values() if r["prefill_tokens"]}  # 0: no prompt (CTC)
        assert len(tokens) <= 1 or args.family in ONE_PASS, f"the sides' prompts differ: {ready}"
        busy = BackgroundLoad(args.busy_workers if args.busy else 0, args.busy_duty)
        with busy:
            for stage in plan:
                measure_stage(stage, workers, args)
        rss = {side.label: max(r["reply"]["rss_peak_mb"] for r in side.records) for side in sides}
    finally:
        for worker in workers.values():
            worker.close()
    summary = {stage.name: summarize(stage, sides) for stage in plan}
    return {
        "title": f"{args.family} {'tiny' if args.quick else 'real'} config, random weights, float32, "
        f"{args.threads} threads, "
        f"{max(tokens, default=0)}-token prompt, {args.runs} rounds after {args.warmup} warm-up",
        "case": case_of(summary, busy),
        "command": " ".join(sys.argv),
        "machine": machine(),
        "sides": ready,
        "summary": summary,
        "audio_seconds": {stage.name: stage.request.get("seconds") for stage in plan},
        "rss_peak_mb": rss,
        "records": {side.label: side.records for side in sides},
    }


def main(argv: Optional[list[str]] = None) -> dict:
    args = parse_args(argv)
    results = run(args)
    args.json.write_text(json.dumps(results, indent=1))
    print_table(results, list(results["sides"]))
    for stage, rows in results["summary"].items():  # the real time factor: compute seconds per audio second
        seconds = results["audio_seconds"].get(stage)
        if stage.startswith("end to end") and seconds:
            rtf = ", ".join(f"{label} {row['median'] / seconds:.4f}" for label, row in rows.items())
            console.print(f"real time factor, {stage}: {rtf}", highlight=False)
    console.print(f"{results['machine']}; wrote {args.json}", highlight=False)
    return results


if __name__ == "__main__":
    main()
