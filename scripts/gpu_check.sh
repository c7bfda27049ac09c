#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (MLX's CUDA backend): the whole test suite and the speed benchmark,
# so the branches only a GPU takes (mx.fast attention, half precision, the app's first-run 4-bit
# conversion) run for real. Usage: scripts/gpu_check.sh [extra pytest arguments]
# A venv of its own (.venv-gpu) with mlx[cuda] instead of mlx[cpu]; results go to gpu-check/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-gpu"
OUT="${GPU_CHECK_OUT:-$ROOT/gpu-check}"
mkdir -p "$OUT"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e "$ROOT[test]" "mlx[cuda]"
"$VENV/bin/python" -c "import mlx.core as mx; assert mx.default_device() == mx.gpu, 'no GPU backend'; print('device:', mx.default_device())"
cd "$ROOT"
"$VENV/bin/python" -m pytest -q "$@" 2>&1 | tee "$OUT/tests.log"
"$VENV/bin/python" -m scripts.bench.overhead --quick --runs 3 --json "$OUT/bench-quick.json" 2>&1 | tee "$OUT/bench-quick.log"
"$VENV/bin/python" -m scripts.bench.overhead --runs 3 --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"   # float32, float16, 4-bit rows
