"""What our side of every benchmark shares: the random checkpoints, the console, the machine's description.

random_checkpoint(cache_dir, quick) -> folder: random weights in the official layout, the real
    Qwen3-ASR-0.6B config.json (the tiny test config with quick); written once, then reused
random_aligner(cache_dir, quick)    -> the same for Qwen3-ForcedAligner-0.6B
random_funasr(cache_dir, quick)     -> the same for Fun-ASR-Nano-2512 (its "-hf" layout)
random_sensevoice(cache_dir, quick) -> the same for SenseVoiceSmall (its release layout, model.pt)
random_paraformer(cache_dir, quick) -> the same for Paraformer-large (its release layout, model.pt)
console                             one rich console for every table
blas_libraries(), machine()         what a result was measured on
"""

import json
import os
import platform
from pathlib import Path

import mlx.core as mx
from rich.console import Console

from mlx_qwen3asr.testing.random_aligner import ALIGNER_FILES_DIR, tiny_aligner_config, write_random_aligner
from mlx_qwen3asr.testing.random_checkpoint import FIXTURES_DIR, tiny_config, write_random_checkpoint
from mlx_qwen3asr.testing.random_funasr import real_funasr_config, tiny_funasr_config, write_random_funasr
from mlx_qwen3asr.testing.random_paraformer import (
    real_paraformer_config,
    tiny_paraformer_config,
    write_random_paraformer,
)
from mlx_qwen3asr.testing.random_sensevoice import (
    real_sensevoice_config,
    tiny_sensevoice_config,
    write_random_sensevoice,
)

ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = Path.home() / ".cache" / "mlx_qwen3asr_bench"  # every benchmark's --cache-dir default
BLAS_NAMES = ("openblas", "libblas", "libcblas", "accelerate", "mkl", "blis")
console = Console(width=200)


def random_checkpoint(cache_dir: Path, quick: bool) -> Path:
    """The random-weight ASR checkpoint (real 0.6B config, or the tiny test config with quick)."""
    folder = Path(cache_dir).resolve() / ("qwen3-asr-tiny-random" if quick else "qwen3-asr-0.6b-random")
    if not (folder / "config.json").exists():
        config = tiny_config() if quick else json.loads((FIXTURES_DIR / "config.json").read_text())
        console.print(f"writing random checkpoint {folder}")
        write_random_checkpoint(folder, config, seed=0)
    return folder


def random_funasr(cache_dir: Path, quick: bool) -> Path:
    """A random-weight Fun-ASR-Nano "-hf" checkpoint (its real config, or the tiny test config with quick)."""
    folder = Path(cache_dir).resolve() / ("fun-asr-nano-tiny-random" if quick else "fun-asr-nano-2512-random")
    if not (folder / "config.json").exists():
        console.print(f"writing random checkpoint {folder}")
        write_random_funasr(folder, tiny_funasr_config() if quick else real_funasr_config(), seed=0)
    return folder


def random_sensevoice(cache_dir: Path, quick: bool) -> Path:
    """A random-weight SenseVoiceSmall release folder (its real config, or the tiny test config with quick)."""
    folder = Path(cache_dir).resolve() / ("sensevoice-tiny-random" if quick else "sensevoice-small-random")
    if not (folder / "model.pt").exists():
        console.print(f"writing random checkpoint {folder}")
        write_random_sensevoice(folder, tiny_sensevoice_config() if quick else real_sensevoice_config(), seed=0)
    return folder


def random_paraformer(cache_dir: Path, quick: bool) -> Path:
    """A random-weight Paraformer release folder (its real config, or the tiny test config with quick)."""
    folder = Path(cache_dir).resolve() / ("paraformer-tiny-random" if quick else "paraformer-large-random")
    if not (folder / "model.pt").exists():
        console.print(f"writing random checkpoint {folder}")
        write_random_paraformer(folder, tiny_paraformer_config() if quick else real_paraformer_config(), seed=0)
    return folder


def random_aligner(cache_dir: Path, quick: bool) -> Path:
    """The random-weight aligner (real Qwen3-ForcedAligner-0.6B config, or the tiny one with quick)."""
    folder = Path(cache_dir).resolve() / (
        "qwen3-forcedaligner-tiny-random" if quick else "qwen3-forcedaligner-0.6b-random"
    )
    if not (folder / "model.safetensors").exists():
        config = tiny_aligner_config() if quick else json.loads((ALIGNER_FILES_DIR / "config.json").read_text())
        console.print(f"writing random aligner {folder}")
        write_random_aligner(folder, config, seed=0)
    return folder


def blas_libraries() -> list[str]:
    """BLAS libraries mapped into this process, numpy's own excluded (a preloaded one wins over mlx's)."""
    mx.eval(mx.ones((8, 8)) @ mx.ones((8, 8)))
    maps = Path("/proc/self/maps")
    libs = set()
    for line in maps.read_text().splitlines() if maps.exists() else []:
        path = line.split()[-1]
        if any(name in path.lower() for name in BLAS_NAMES) and "numpy" not in path:
            libs.add(path)
    return sorted(libs)


def machine() -> str:
    """CPU model, core count, OS, mlx version and device."""
    model = platform.processor() or platform.machine()
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as cpuinfo:
            model = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), model)
    return f"{model}, {os.cpu_count()} cores, {platform.system()}, mlx {mx.__version__}, {mx.default_device()}"
