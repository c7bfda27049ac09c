"""Our side of scripts/bench/vs_official.py: a worker process answering one measurement per request.

    python -m scripts.bench.workers.ours CHECKPOINT   (started by the driver in the folder of the
        package measured, with the BLAS preloaded and the thread count set in its environment)
    -> ready: {"side": "ours", "blas": library, "dtypes": [...], "prefill_tokens": n}
    -> requests (see protocol.py):
       encoder(seconds)           log-mel + encoder of a clip               -> seconds
       prefill(head)              decoder over a 10 s clip's prompt, LM head over the last
                                  position ("last") or every position ("all"), as the decode
                                  loop runs it (on two CPU streams where the package has them)
                                                                            -> seconds
       decode(tokens)             greedy steps after the prefill, EOS ignored -> ms per token
       end_to_end(seconds, tokens) wave -> text with exactly `tokens` tokens   -> seconds

The driver may run it on an older checkout of the package (before/after a change: sources.py), so
this worker uses only names that have long been public.
"""

import argparse
import time

import mlx.core as mx
from mlx.utils import tree_flatten

import mlx_qwen3asr as mq

try:
    from mlx_qwen3asr.runtime.blas import global_cblas
except ImportError:  # an older tree (ours@REV from before issue 39): blas.py at the package root
    from mlx_qwen3asr.blas import global_cblas
from mlx_qwen3asr.decode.generate import generate_steps
from mlx_qwen3asr.families.recogniser import encode_audio
from scripts.bench.clips import clip
from scripts.bench.workers.protocol import PROMPT_SECONDS, serve

try:  # the prefill as the decode loop runs it (generate.decode_steps); older revisions lack it
    from mlx_qwen3asr.runtime.two_streams import two_streams
except ImportError:
    try:  # its name before issue 26
        from mlx_qwen3asr.layers.streams import two_streams
    except ImportError:
        from contextlib import nullcontext as two_streams


def prompt_ids(model, n_audio: int) -> list[int]:
    """The model's prompt around n_audio pads (revisions before Fun-ASR-Nano build it in the tokenizer)."""
    if hasattr(model, "prompt_ids"):
        return model.prompt_ids(n_audio)
    from mlx_qwen3asr.text.tokenizer import build_prompt

    return build_prompt(model.tokenizer, n_audio)


class Ours:
    def __init__(self, checkpoint: str):
        self.model = mq.load(checkpoint, dtype="float32")
        self.embeddings = self._prompt_embeddings(clip(PROMPT_SECONDS))

    def _prompt_embeddings(self, wave) -> mx.array:
        features = encode_audio(self.model, wave)
        prompt = prompt_ids(self.model, features.shape[0])
        embeddings = self.model.embed(mx.array(prompt), features)
        mx.eval(embeddings)
        return embeddings

    def ready(self) -> dict:
        dtypes = sorted({str(v.dtype) for _, v in tree_flatten(self.model.parameters())})
        return {
            "side": "ours",
            "blas": global_cblas() or "reference",
            "dtypes": dtypes,
            "prefill_tokens": int(self.embeddings.shape[1]),
            "mlx": mx.__version__,
        }

    def encoder(self, seconds: float) -> dict:
        wave = clip(seconds)
        start = time.perf_counter()
        mx.eval(encode_audio(self.model, wave))
        return {"seconds": time.perf_counter() - start}

    def prefill(self, head: str) -> dict:
        start = time.perf_counter()
        with two_streams():
            mx.eval(self.model(self.embeddings, self.model.make_cache(), last_only=head == "last"))
        return {"seconds": time.perf_counter() - start}

    def decode(self, tokens: int) -> dict:
        """Time from the first token (prefill done) to the last of `tokens` more, per token."""
        steps = generate_steps(self.model, self.embeddings, self.model.make_cache(), tokens + 1)
        next(steps)
        start = time.perf_counter()
        for _ in steps:
            pass
        return {"ms_per_token": 1000 * (time.perf_counter() - start) / tokens}

    def end_to_end(self, seconds: float, tokens: int) -> dict:
        wave = clip(seconds)
        start = time.perf_counter()
        embeddings = self._prompt_embeddings(wave)
        ids = list(generate_steps(self.model, embeddings, self.model.make_cache(), tokens))
        text = self.model.tokenizer.decode(ids)
        return {"seconds": time.perf_counter() - start, "tokens": len(ids), "chars": len(text)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    args = parser.parse_args()
    side = Ours(args.checkpoint)
    serve(side, side.ready())


if __name__ == "__main__":
    main()
