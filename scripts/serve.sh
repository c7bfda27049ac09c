#!/usr/bin/env bash
# The local server (OpenAI's audio API + live WebSocket): scripts/serve.sh [--model M] [--aligner A] [--port 8000] ... (see --help)
source "$(dirname "$0")/env.sh"
exec "$PYTHON" -m mlx_qwen3asr.server "$@"
