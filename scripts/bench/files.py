"""Throughput of transcribe_files on many short files: one process against Ray workers (--ray).

    --files clips of --seconds each (speech-like bursts, a seed each) in a temporary folder
    -> --runs rounds, the two sides alternating in each (a shared machine's load hits both alike):
       transcribe_files(..., runner=LocalRunner())                       one process, all cores
       transcribe_files(..., runner=RayRunner(workers=W, cpus=C))        W Ray actors of C threads each
       (a local Ray started and stopped by each call, as `scripts/run.sh DIR -o OUT --ray` does)
    -> per run: start-up (loading the model; on Ray also Ray's own start and every actor's load),
       the rest (decoding, shipping files and results, writing), its time per file, audio-s per s
    -> the texts of both sides compared (they must be equal), the medians, Ray's extra time per file
       (its decode phase minus one process's, per file: with --size tiny, where decoding is almost
       free, that is Ray's own per-file overhead), and on paper what N such machines give

Models are random weights (no downloads): --size 0.6b has the real Qwen3-ASR-0.6B config (the real
compute; its text is meaningless, so --tokens fixes the decode length), --size tiny the test config.
Usage: .venv/bin/python -m scripts.bench.files [--size tiny|0.6b] [--files 40] [--seconds 4] [--runs 2]
Run it through scripts/env.sh (or with the BLAS preload of mlx_qwen3asr/runtime/blas.py) on Linux.
"""

import argparse
import json
import os
import platform
import statistics
import tempfile
from pathlib import Path

import mlx_qwen3asr as mq
from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from mlx_qwen3asr.testing.random_checkpoint import FIXTURES_DIR, tiny_config, write_random_checkpoint
from mlx_qwen3asr.testing.signals import burst, write_wav

ARCHIVE_HOURS = 1000.0  # the archive of the paper estimate
ARCHIVE_FILE_MINUTES = 30.0  # its files' length (podcast episodes, lectures)


def checkpoint(size: str, cache: Path) -> Path:
    folder = cache / f"random-{size}"
    if not (folder / "config.json").exists():
        config = tiny_config() if size == "tiny" else json.loads((FIXTURES_DIR / "config.json").read_text())
        write_random_checkpoint(folder, config, seed=0)
    return folder


def clips(folder: Path, count: int, seconds: float) -> float:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        write_wav(folder / f"clip{i:03d}.wav", burst(seconds, seed=i))
    return count * seconds


def one_run(inputs: Path, model: Path, out: Path, args, runner):
    summary = mq.transcribe_files(
        [inputs],
        mq.FolderSpec(model, mq.DecodeOptions(max_new_tokens=args.tokens)),
        out,
        formats=["txt"],
        runner=runner,
    )
    assert summary.done == args.files and summary.failed == 0, summary
    return summary


def texts(out: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(out.glob("*.txt"))}


def paper(single_speed: float, ray_startup: float, extra_per_file: float) -> None:
    """Hours of wall time for ARCHIVE_HOURS on N machines like this one, each one Ray worker."""
    files = ARCHIVE_HOURS * 60 / ARCHIVE_FILE_MINUTES
    print(
        f"\non paper: {ARCHIVE_HOURS:.0f} h of audio in {files:.0f} files of {ARCHIVE_FILE_MINUTES:.0f} min, machines"
    )
    print(f"like this one decoding {single_speed:.2f} audio-s/s each, Ray start-up {ray_startup:.1f} s, ")
    print(f"{extra_per_file * 1000:.0f} ms extra per file (overlapping the decoding in practice; counted in full here)")
    for n in (1, 2, 4, 8, 16, 32):
        seconds = ray_startup + (ARCHIVE_HOURS * 3600 / single_speed + files * extra_per_file) / n
        print(f"  {n:3d} machine(s): {seconds / 3600:7.1f} h")


def main() -> None:
    ensure_fast_blas()  # the BLAS scripts/env.sh preloads, also when run without it (re-executes once)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", choices=("tiny", "0.6b"), default="0.6b")
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each clip")
    parser.add_argument("--tokens", type=int, default=16, help="tokens decoded per clip (random weights)")
    parser.add_argument("--runs", type=int, default=2, help="rounds, each one run of each side")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-cpus", type=float, default=1)
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "mlx-qwen3asr-bench-files")
    args = parser.parse_args()
    model = checkpoint(args.size, args.cache_dir)
    ray = mq.RayRunner(workers=args.workers, cpus=args.worker_cpus)
    print(f"{platform.node()}: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start")
    print(f"{args.files} clips of {args.seconds:g} s, {args.tokens} tokens each, model {args.size}; Ray: {ray}")
    with tempfile.TemporaryDirectory() as temp:
        inputs = Path(temp, "in")
        audio = clips(inputs, args.files, args.seconds)
        results: dict[str, list] = {"one process": [], "ray": []}
        for round_ in range(args.runs):
            for side, option in (("one process", mq.LocalRunner()), ("ray", ray)):
                out = Path(temp, f"{side}-{round_}")
                summary = one_run(inputs, model, out, args, option)
                work = summary.wall_seconds - summary.startup_seconds
                results[side].append((summary.startup_seconds, work, texts(out)))
                print(
                    f"  {side:12s} start-up {summary.startup_seconds:6.2f} s, then {work:6.2f} s "
                    f"({work / args.files * 1000:6.1f} ms a file, {audio / work:6.2f} audio-s/s); {summary}"
                )
        same = all(r[2] == results["one process"][0][2] for side in results.values() for r in side)
        print(f"texts: {'the same on both sides' if same else 'DIFFERENT'} ({args.files} files)")
        medians = {side: [statistics.median(r[i] for r in runs) for i in (0, 1)] for side, runs in results.items()}
        (single_start, single_work), (ray_start, ray_work) = medians["one process"], medians["ray"]
        extra = (ray_work - single_work) / args.files
        print(
            f"medians: one process start-up {single_start:.2f} s, work {single_work:.2f} s ({audio / single_work:.2f} audio-s/s)"
        )
        print(f"         ray start-up {ray_start:.2f} s, work {ray_work:.2f} s ({audio / ray_work:.2f} audio-s/s)")
        print(f"ray: {ray_start - single_start:+.2f} s start-up, {extra * 1000:+.1f} ms a file against one process")
        print(f"load average {os.getloadavg()[0]:.2f} at the end (other work on this machine slows both sides)")
        paper(audio / single_work, ray_start, max(extra, 0.0))
        if not same:
            raise SystemExit("the texts differ between one process and Ray")


if __name__ == "__main__":
    main()
