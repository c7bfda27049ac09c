#!/usr/bin/env bash
# Run the test suite (extra pytest arguments pass through, e.g. -k mel or -x).
source "$(dirname "$0")/env.sh"
cd "$ROOT"
exec "$PYTHON" -m pytest -q "$@"
