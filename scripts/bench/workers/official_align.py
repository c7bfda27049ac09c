"""The official Qwen3ForcedAligner's side of scripts/bench/align.py, run in its own environment.

    python -m scripts.bench.workers.official_align CHECKPOINT AUDIO.npy TEXT_FILE --language English --threads 2
    -> prints "ready", then for each "run" line read on stdin: one `.align()` of the audio and text,
       answered by one JSON line {"seconds": wall time, "classes": [...], "words": [[text, start, end], ...]}

Needs torch + qwen-asr (dev only); align.py starts it as a subprocess and alternates its runs
with ours, so that both see the same machine load. float32, CPU; the encoder runs as shipped (full
attention over the clip).
"""

import argparse
import json
import sys
import time

import numpy as np
import torch
from qwen_asr.inference.qwen3_forced_aligner import Qwen3ForcedAligner

from scripts.bench.clips import SAMPLE_RATE


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint")
    parser.add_argument("audio", help=".npy float32 16 kHz mono")
    parser.add_argument("text_file")
    parser.add_argument("--language", default="English")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    aligner = Qwen3ForcedAligner.from_pretrained(args.checkpoint, dtype=torch.float32)
    aligner.model.eval()
    wave = np.load(args.audio)
    text = open(args.text_file, encoding="utf-8").read()
    seen = {}
    aligner.model.thinker.register_forward_hook(
        lambda m, a, kw, out: seen.update(ids=kw["input_ids"][0], logits=out.logits[0]), with_kwargs=True
    )
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            break
        start = time.perf_counter()
        with torch.inference_mode():
            items = aligner.align(audio=(wave, SAMPLE_RATE), text=text, language=args.language)[0]
        seconds = time.perf_counter() - start
        classes = seen["logits"][seen["ids"] == aligner.timestamp_token_id].argmax(-1).tolist()
        words = [[item.text, item.start_time, item.end_time] for item in items]
        print(json.dumps({"seconds": seconds, "classes": classes, "words": words}), flush=True)


if __name__ == "__main__":
    main()
