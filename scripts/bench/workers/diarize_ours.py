"""Our side of scripts/bench/diarize.py: the MLX pipeline as a worker.

python -m scripts.bench.workers.diarize_ours FOLDER
-> ready: {"side": "mlx-qwen3asr", "mlx", "blas", "rss_mb" after loading}
-> diarize(path): mq.diarize on the WAV at `path` (read with mq.load_audio, outside the timing)
   -> {"seconds": wall, "turns": n, "speakers": n}
"""

import argparse
import time

import mlx.core as mx
import numpy as np

import mlx_qwen3asr as mq
from mlx_qwen3asr.runtime.blas import ensure_fast_blas, global_cblas
from scripts.bench.workers.protocol import rss_peak_mb, serve


class Ours:
    def __init__(self, folder: str):
        self.diarizer = mq.load(folder)
        mq.diarize(np.zeros(16000 * 10, np.float32) + 1e-3, self.diarizer)  # warm up: one window

    def diarize(self, path: str) -> dict:
        wave = mq.load_audio(path)
        start = time.perf_counter()
        turns = mq.diarize(wave, self.diarizer).turns
        return {
            "seconds": time.perf_counter() - start,
            "turns": len(turns),
            "speakers": len({t.speaker for t in turns}),
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    args = parser.parse_args()
    ensure_fast_blas()
    side = Ours(args.folder)
    serve(side, {"side": "mlx-qwen3asr", "mlx": mx.__version__, "blas": global_cblas(), "rss_mb": rss_peak_mb()})


if __name__ == "__main__":
    main()
