"""The families' lanes of scripts/bench/vs_official.py: which stages each family measures, which worker each side
runs, which random checkpoint it loads.

    qwen3-asr, fun-asr-nano: log-mel + encoder 10 s / 60 s, prefill, decode, end to end (workers/ours.py;
      official: workers/official.py, workers/official_funasr.py)
    sensevoice, paraformer (ONE_PASS: no decoder loop): end to end on 10 s and 60 s (workers/ours_one_pass.py,
      official: workers/official_one_pass.py) and a third side, qwen3 (our Qwen3-ASR 0.6B on the same clips,
      decoding 3 tokens per second of audio); paraformer also times the parts of its pass on ours alone
      (encoder + predictor, the host's CIF, the decoder: workers/ours_one_pass.py part())
"""

import argparse
from dataclasses import dataclass

from scripts.bench.common import random_checkpoint, random_funasr, random_paraformer, random_sensevoice

FAMILIES = ("qwen3-asr", "fun-asr-nano", "sensevoice", "paraformer")
ONE_PASS = ("sensevoice", "paraformer")
WRITERS = {"fun-asr-nano": random_funasr, "sensevoice": random_sensevoice, "paraformer": random_paraformer}
OFFICIAL_WORKERS = {
    "fun-asr-nano": "official_funasr",
    "sensevoice": "official_one_pass",
    "paraformer": "official_one_pass",
}


def checkpoint_writer(family: str):
    return WRITERS.get(family, random_checkpoint)


def ours_worker(family: str) -> str:
    return "ours_one_pass" if family in ONE_PASS else "ours"


@dataclass
class Stage:
    key: str  # for --stages
    name: str
    request: dict
    sides: str = "all"  # "all"; "official": a variant only the official side has; "ours": only our side
    unit: str = "s"


SPEECH_TOKENS_PER_SECOND = 3  # what an autoregressive side decodes for the one-pass families' clips
PARTS = (("encoder", "ours: encoder + predictor"), ("cif", "ours: CIF on the host"), ("decoder", "ours: decoder"))


def stages(args: argparse.Namespace) -> list[Stage]:
    if args.family in ONE_PASS:  # no decoder loop: the whole pass compares
        out = [
            Stage(f"e2e{s:g}", f"end to end, {s:g} s clip", {"stage": "end_to_end", "seconds": s,
                  "tokens": int(SPEECH_TOKENS_PER_SECOND * s)})
            for s in args.seconds
        ]  # fmt: skip
        if args.family == "paraformer":  # the CIF's cost next to the encoder's, on our side
            out += [
                Stage(f"{part}{s:g}", f"{title}, {s:g} s", {"stage": "part", "seconds": s, "name": part}, sides="ours")
                for s in args.seconds
                for part, title in PARTS
            ]
        return out
    out = [
        Stage(f"encoder{s:g}", f"log-mel + encoder, {s:g} s", {"stage": "encoder", "seconds": s}) for s in args.seconds
    ]
    out += [
        Stage("prefill", "prefill, LM head on the last position", {"stage": "prefill", "head": "last"}),
        Stage("prefill_all", "prefill, LM head on every position", {"stage": "prefill", "head": "all"}),
        Stage("decode", "decode, ms per token", {"stage": "decode", "tokens": args.decode_tokens}, unit="ms"),
        Stage(
            "decode_generate",
            "decode, ms per token, its generate()",
            {"stage": "decode", "tokens": args.decode_tokens, "way": "generate"},
            sides="official",
            unit="ms",
        ),
        Stage(
            "e2e",
            f"end to end, 10 s clip, {args.e2e_tokens} tokens",
            {"stage": "end_to_end", "seconds": 10.0, "tokens": args.e2e_tokens},
        ),
    ]
    return out
