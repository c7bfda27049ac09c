"""What live partials show in a noisy room, side by side for two revisions of the library.

    espeak-ng speech (tests/fixtures/audio: short, long, short; 1 s gaps), clean and under steady white noise
      -> mq.LiveSession(model) as the app and the server run it (the default Silero VAD, streaming partials),
         a fake clock at real-time pace, 30 ms blocks, 8 tokens a decode
      -> per background: the partial events (how many, how many empty, how many equal the first side's)
         and whether the commits equal the first side's
    model: the listening random-weight checkpoint of the tests (its text changes with the audio), float32

    python -m scripts.bench.partials_noise                        # this checkout alone
    python -m scripts.bench.partials_noise --sides ours@71cd3c4,ours  # before / after a change

Each side runs in its own process on the package as of its revision (scripts.bench.sources) with the same
BLAS, so the same audio gives the same arithmetic; only the library's decisions differ.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from scripts.bench.common import CACHE_DIR
from scripts.bench.live_replay import FakeClock, real_time
from scripts.bench.sources import ROOT, source_tree

BACKGROUNDS = {
    "clean": None,
    "noise -40 dBFS": -40.0,
    "noise -28 dBFS": -28.0,
    "noise -24 dBFS": -24.0,
    "noise -20 dBFS": -20.0,
    "noise -17 dBFS": -17.0,
}


def session_audio() -> np.ndarray:
    import mlx_qwen3asr as mq

    clips = [mq.load_audio(ROOT / "tests/fixtures/audio" / f"{name}.wav") for name in ("short", "long", "short")]
    gap = np.zeros(mq.SAMPLE_RATE, np.float32)
    return np.concatenate([gap, clips[0], gap, clips[1], gap, clips[2], gap])


def one_side(checkpoint: Path) -> dict:
    """Every background's (type, text) partial and commit events, on the package this process imports."""
    import mlx_qwen3asr as mq

    model, speech, out = mq.load(checkpoint, dtype="float32"), session_audio(), {}
    for name, level in BACKGROUNDS.items():
        noise = np.random.default_rng(1).standard_normal(len(speech)) * (0.0 if level is None else 10 ** (level / 20))
        audio = np.clip(speech + noise.astype(np.float32), -1.0, 1.0)
        clock = FakeClock()
        events = real_time(mq.LiveSession(model, mq.DecodeOptions(max_new_tokens=8), clock=clock), clock, audio)
        out[name] = [(e.type, e.text) for e in events if e.type in ("partial", "commit")]
    out["package"] = str(Path(mq.__file__).parent)
    return out


def run_side(side: str, checkpoint: Path, cache_dir: Path) -> dict:
    rev = side.partition("@")[2]
    root = source_tree(rev, cache_dir) if rev else ROOT
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys([str(root), str(ROOT)]))}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "events.json"
        command = [sys.executable, "-m", "scripts.bench.partials_noise", "--one-side", str(checkpoint), str(out)]
        subprocess.run(command, env=env, cwd=root, check=True)  # cwd first on sys.path: the side's package
        return json.loads(out.read_text())


def table(sides: list[str], results: list[dict]) -> None:
    print("| background | side | partials | empty | equal to the first side's | commits equal |")
    print("|---|---|---|---|---|---|")
    for name in BACKGROUNDS:
        first = results[0][name]
        for side, result in zip(sides, results):
            partials = [text for kind, text in result[name] if kind == "partial"]
            reference = [text for kind, text in first if kind == "partial"]
            same = sum(a == b for a, b in zip(partials, reference))
            commits = [text for kind, text in result[name] if kind == "commit"]
            same_commits = commits == [text for kind, text in first if kind == "commit"]
            empty = sum(not text for text in partials)
            print(f"| {name} | {side} | {len(partials)} | {empty} | {same} | {same_commits} ({len(commits)}) |")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--one-side":
        Path(sys.argv[3]).write_text(json.dumps(one_side(Path(sys.argv[2]))))
        return
    from mlx_qwen3asr.runtime.blas import ensure_fast_blas
    from mlx_qwen3asr.testing.random_checkpoint import write_listening_checkpoint

    ensure_fast_blas()  # both sides inherit this process's BLAS
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sides", default="ours", help="comma list of ours[@GIT_REV]; the first is the reference")
    p.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    args = p.parse_args()
    checkpoint = args.cache_dir / "listening-tiny"
    if not (checkpoint / "model.safetensors").exists():
        write_listening_checkpoint(checkpoint)
    sides = args.sides.split(",")
    results = [run_side(side, checkpoint, args.cache_dir) for side in sides]
    print(f"load average {os.getloadavg()[0]:.1f}; model {checkpoint} (listening, tiny), float32")
    for side, result in zip(sides, results):
        print(f"{side}: the package at {result.pop('package')}")
    table(sides, results)


if __name__ == "__main__":
    main()
