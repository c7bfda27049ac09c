"""Our side of scripts/bench/vs_official.py for a model without a decoder loop (--family sensevoice, paraformer):
a worker process.

python -m scripts.bench.workers.ours_one_pass CHECKPOINT   (started by the driver)
-> ready: {"side": "ours", "dtypes": [...], "prefill_tokens": 0, "mlx": version}
-> end_to_end(seconds, tokens): model.recognise(wave), the one pass transcribe runs for a chunk of up to 60 s
   (SenseVoiceSmall: fbank + LFR + CMVN -> encoder -> CTC -> text; Paraformer: ... -> encoder -> CIF -> decoder
   -> text and times; `tokens` is the autoregressive sides' budget: unused)
-> part(seconds, name) (Paraformer): the seconds of one part of that pass, the others run untimed around it:
   "encoder" (features, encoder and the predictor's alphas, evaluated), "cif" (the host's tail, fire and
   integrate), "decoder" (the decoder pass and the argmax)
"""

import argparse
import time

import mlx.core as mx
from mlx.utils import tree_flatten

import mlx_qwen3asr as mq
from mlx_qwen3asr.runtime.blas import global_cblas
from scripts.bench.clips import clip
from scripts.bench.workers.protocol import serve


class Ours:
    def __init__(self, checkpoint: str):
        self.model = mq.load(checkpoint, dtype="float32")

    def ready(self) -> dict:
        dtypes = sorted({str(v.dtype) for _, v in tree_flatten(self.model.parameters())})
        blas = global_cblas() or "reference"
        return {"side": "ours", "blas": blas, "dtypes": dtypes, "prefill_tokens": 0, "mlx": mx.__version__}

    def end_to_end(self, seconds: float, tokens: int) -> dict:
        wave = clip(seconds)
        start = time.perf_counter()
        segment = self.model.recognise(wave)
        return {"seconds": time.perf_counter() - start, "tokens": len(segment.token_ids), "chars": len(segment.text)}

    def part(self, seconds: float, name: str) -> dict:
        features = self.model.features(clip(seconds))
        times = {"encoder": time.perf_counter()}
        encoded, alphas = self.model.encode(features)
        times["cif"] = time.perf_counter()
        cif = self.model.fire(encoded, alphas)
        times["decoder"] = time.perf_counter()
        mx.eval(mx.argmax(self.model.log_probs(cif["rows"], encoded), axis=-1))
        times["end"] = time.perf_counter()
        after = {"encoder": "cif", "cif": "decoder", "decoder": "end"}[name]
        return {"seconds": times[after] - times[name], "tokens": len(cif["rows"]), "chars": 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    side = Ours(parser.parse_args().checkpoint)
    serve(side, side.ready())


if __name__ == "__main__":
    main()
