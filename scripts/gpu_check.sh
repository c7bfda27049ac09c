#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (MLX's CUDA backend): the whole test suite and the speed benchmark,
# so the branches only a GPU takes (mx.fast attention, half precision, the app's first-run 4-bit
# conversion) run for real. Usage: scripts/gpu_check.sh [extra pytest arguments]
# Results go to gpu-check/ (or $GPU_CHECK_OUT). GPU_CHECK_TEST_SECONDS caps the tests' time, GPU_CHECK_QUICK=1 skips
# the full-size benchmark.
#
# Online: a venv of its own (.venv-gpu) with mlx[cuda] instead of mlx[cpu].
# Offline (a machine that reaches no index): GPU_CHECK_WHEELS=DIR names a folder of wheels (mlx, mlx-cuda-13,
# and whatever else that machine's python3 lacks); they go to a private site folder on top of python3's own
# packages (CUDA's libraries, numpy, scipy... must already be there), and the repository is put on the path.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${GPU_CHECK_OUT:-$ROOT/gpu-check}"
mkdir -p "$OUT"
cd "$ROOT"
if [ -n "${GPU_CHECK_WHEELS:-}" ]; then
    SITE="${GPU_CHECK_SITE:-/tmp/gpu-check-site}"
    python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$SITE" "$GPU_CHECK_WHEELS"/*.whl
    [ -d "$ROOT/mlx_qwen3asr_app" ] || ln -sfn "$ROOT/app" "$SITE/mlx_qwen3asr_app"   # the app's import name
    export PYTHONPATH="$SITE:$ROOT${PYTHONPATH:+:$PYTHONPATH}"
    PY=python3
else
    VENV="$ROOT/.venv-gpu"
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -e "$ROOT[test]" "mlx[cuda]"
    PY="$VENV/bin/python"
fi
"$PY" -c "import mlx.core as mx; assert mx.default_device() == mx.gpu, 'no GPU backend'; print('device:', mx.default_device(), mx.device_info().get('device_name', ''))"
# float32 tests (the parity goldens) in true float32: MLX reads this once per process, at its first float32
# product, so load(dtype="float32") cannot turn TF32 off after other tests' products (runtime/device.py)
export MLX_ENABLE_TF32="${MLX_ENABLE_TF32:-0}"
timeout "${GPU_CHECK_TEST_SECONDS:-0}" "$PY" -m pytest -q -p no:cacheprovider "$@" 2>&1 | tee "$OUT/tests.log" || true
"$PY" -m scripts.bench.overhead --quick --runs 3 --json "$OUT/bench-quick.json" 2>&1 | tee "$OUT/bench-quick.log"
[ -n "${GPU_CHECK_QUICK:-}" ] || "$PY" -m scripts.bench.overhead --runs 3 --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.log"   # float32, float16, 4-bit rows
