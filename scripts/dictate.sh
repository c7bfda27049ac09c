#!/usr/bin/env bash
# Live dictation from the microphone: scripts/dictate.sh [--language L] [--output FILE] ... (see --help)
source "$(dirname "$0")/env.sh"
exec "$PYTHON" -m mlx_qwen3asr_app "$@"
