#!/usr/bin/env python3
"""Convert a Qwen3-ASR checkpoint into a (quantized) MLX folder; see `--help` or the README.

    python scripts/convert.py --model Qwen/Qwen3-ASR-0.6B -o qwen3-asr-0.6b-4bit

The same command is installed as `mlx-qwen3asr-convert`.
"""

import sys

from mlx_qwen3asr.cli.convert import main

if __name__ == "__main__":
    sys.exit(main())
