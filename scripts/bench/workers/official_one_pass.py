"""The official side of scripts/bench/vs_official.py for FunASR's one-pass models (--family sensevoice, paraformer):
funasr 1.4.16's AutoModel in its own torch environment (scripts/make_sensevoice_goldens.py's docstring has the recipe).

    python -m scripts.bench.workers.official_one_pass RELEASE_FOLDER --threads 2   (started by the driver)
    -> ready: {"side": "official", "dtypes": ["float32"], "prefill_tokens": 0, "torch": version, "threads": n}
    -> end_to_end(seconds, tokens): AutoModel.generate(wave, language="auto", use_itn=False): its front end
       (dither 0), the encoder, CTC (SenseVoiceSmall) or CIF and the decoder (Paraformer, which ignores the
       language and itn keywords) and decoding to text, as a user calls it (no VAD model: one pass)
"""

import argparse
import contextlib
import sys
import time

import torch

with contextlib.redirect_stdout(sys.stderr):  # funasr prints its version on import; stdout carries the replies
    from funasr import AutoModel

from scripts.bench.clips import clip
from scripts.bench.workers.protocol import serve


class Official:
    def __init__(self, checkpoint: str, threads: int):
        with contextlib.redirect_stdout(sys.stderr):
            self.model = AutoModel(
                model=checkpoint, device="cpu", disable_update=True, ncpu=threads, frontend_conf={"dither": 0.0}
            )
        dtypes = {p.dtype for p in self.model.model.parameters()}
        if dtypes != {torch.float32}:
            raise SystemExit(f"official weights are {sorted(map(str, dtypes))}, not float32: not the same work")

    def ready(self) -> dict:
        return {
            "side": "official",
            "dtypes": ["float32"],
            "prefill_tokens": 0,
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
        }

    def end_to_end(self, seconds: float, tokens: int) -> dict:
        wave = clip(seconds)
        start = time.perf_counter()
        result = self.model.generate(input=wave, language="auto", use_itn=False, disable_pbar=True)
        return {"seconds": time.perf_counter() - start, "tokens": 0, "chars": len(result[0]["text"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--threads", type=int, required=True)
    args = parser.parse_args()
    side = Official(args.checkpoint, args.threads)
    serve(side, side.ready())


if __name__ == "__main__":
    main()
