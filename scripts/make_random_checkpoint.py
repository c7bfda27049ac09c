"""Write a random-weight Qwen3-ASR checkpoint in the official Hugging Face layout (for trying and testing).

    python scripts/make_random_checkpoint.py OUT [--size tiny|0.6b] [--seed 0] [--layout official|hf] [--shard-mb N]

`tiny` is the real config.json with small layer sizes (seconds to write); `0.6b` is the real
Qwen3-ASR-0.6B config (about 1.9 GB in bf16). The text it transcribes is meaningless.
"""

import argparse
import json

from mlx_qwen3asr.testing.random_checkpoint import FIXTURES_DIR, tiny_config, write_random_checkpoint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="folder to write")
    parser.add_argument("--size", choices=("tiny", "0.6b"), default="tiny")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--layout", choices=("official", "hf"), default="official")
    parser.add_argument("--shard-mb", type=int, default=None, help="split the weights into shards of this size")
    args = parser.parse_args()
    config = tiny_config() if args.size == "tiny" else json.loads((FIXTURES_DIR / "config.json").read_text())
    shard_bytes = args.shard_mb * 2**20 if args.shard_mb else None
    folder = write_random_checkpoint(args.out, config, seed=args.seed, layout=args.layout, max_shard_bytes=shard_bytes)
    print(folder)


if __name__ == "__main__":
    main()
