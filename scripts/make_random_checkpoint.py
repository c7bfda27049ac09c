"""Write a random-weight checkpoint in a published Hugging Face layout (for trying and testing).

    python scripts/make_random_checkpoint.py OUT [--family qwen3-asr|fun-asr-nano] [--size tiny|real]
                                                 [--seed 0] [--layout official|hf] [--shard-mb N]

`tiny` is the real config.json with small layer sizes (seconds to write); `real` (or `0.6b`) the real
configuration: Qwen3-ASR-0.6B (about 1.9 GB in bf16) or Fun-ASR-Nano-2512 (about 1.7 GB, always its
"-hf" layout in one file). The text it transcribes is meaningless.
"""

import argparse
import json

from mlx_qwen3asr.testing.random_checkpoint import FIXTURES_DIR, tiny_config, write_random_checkpoint
from mlx_qwen3asr.testing.random_funasr import real_funasr_config, tiny_funasr_config, write_random_funasr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="folder to write")
    parser.add_argument("--family", choices=("qwen3-asr", "fun-asr-nano"), default="qwen3-asr")
    parser.add_argument("--size", choices=("tiny", "real", "0.6b"), default="tiny")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--layout", choices=("official", "hf"), default="official")
    parser.add_argument("--shard-mb", type=int, default=None, help="split the weights into shards of this size")
    args = parser.parse_args()
    if args.family == "fun-asr-nano":
        if args.layout != "official" or args.shard_mb:
            parser.error(
                "a Fun-ASR-Nano checkpoint is written in its -hf layout, in one file: drop --layout/--shard-mb"
            )
        print(
            write_random_funasr(
                args.out, tiny_funasr_config() if args.size == "tiny" else real_funasr_config(), seed=args.seed
            )
        )
        return
    config = tiny_config() if args.size == "tiny" else json.loads((FIXTURES_DIR / "config.json").read_text())
    shard_bytes = args.shard_mb * 2**20 if args.shard_mb else None
    folder = write_random_checkpoint(args.out, config, seed=args.seed, layout=args.layout, max_shard_bytes=shard_bytes)
    print(folder)


if __name__ == "__main__":
    main()
