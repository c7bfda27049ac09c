"""`python -m mlx_qwen3asr.server --model M`: see serve.py."""

import sys

from .serve import main

if __name__ == "__main__":
    sys.exit(main())
