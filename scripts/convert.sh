#!/usr/bin/env bash
# Convert a checkpoint to a (quantized) MLX folder: scripts/convert.sh --model M -o OUT [--bits 4|8|16] ...
source "$(dirname "$0")/env.sh"
exec "$PYTHON" -m mlx_qwen3asr.cli.convert "$@"
