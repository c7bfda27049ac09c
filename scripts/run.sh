#!/usr/bin/env bash
# Transcribe audio files: scripts/run.sh FILE... [--model M] [--language L] [-f txt|json|srt|vtt]
source "$(dirname "$0")/env.sh"
exec "$PYTHON" -m mlx_qwen3asr "$@"
