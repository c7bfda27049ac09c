"""pyannote.audio's side of scripts/bench/diarize.py, run as a worker in its own torch environment (dev only).

    python -m scripts.bench.workers.diarize_official FOLDER --threads 2
        (started by the driver from the repository root; needs torch + pyannote.audio 4.0.7)
    -> ready: {"side": "pyannote.audio", "version", "torch", "threads", "rss_mb" after loading}
    -> diarize(path): Pipeline(folder) on the WAV at `path` (16 kHz mono int16, read here: pyannote's own
       reader needs FFmpeg) -> {"seconds": wall, "turns": n, "speakers": n}

torch never enters the project's own processes.
"""

import argparse
import os
import time
import wave

import numpy as np
import torch

from scripts.bench.workers.protocol import rss_peak_mb, serve


def read_wav(path: str) -> np.ndarray:
    with wave.open(path, "rb") as f:
        return np.frombuffer(f.readframes(f.getnframes()), "<i2").astype(np.float32) / np.float32(32768)


class Official:
    def __init__(self, folder: str):
        os.environ.setdefault("PYANNOTE_METRICS_ENABLED", "0")
        from pyannote.audio import Pipeline

        self.pipeline = Pipeline.from_pretrained(folder)
        self.pipeline(self._audio(np.zeros(16000 * 10, np.float32) + 1e-3))  # warm up: one window

    @staticmethod
    def _audio(samples: np.ndarray) -> dict:
        return {"waveform": torch.from_numpy(samples)[None], "sample_rate": 16000}

    def diarize(self, path: str) -> dict:
        samples = read_wav(path)
        start = time.perf_counter()
        with torch.inference_mode():
            out = self.pipeline(self._audio(samples))
        seconds = time.perf_counter() - start
        labels = [label for _, _, label in out.speaker_diarization.itertracks(yield_label=True)]
        return {"seconds": seconds, "turns": len(labels), "speakers": len(set(labels))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    import pyannote.audio

    side = Official(args.folder)
    ready = {"side": "pyannote.audio", "version": pyannote.audio.__version__, "torch": torch.__version__,
             "threads": torch.get_num_threads(), "rss_mb": rss_peak_mb()}  # fmt: skip
    serve(side, ready)


if __name__ == "__main__":
    main()
