# Sourced by scripts/run.sh and scripts/test.sh: one-time set-up of everything the project needs.
#   - Debian/Ubuntu (as root): system packages via apt-get: OpenBLAS, a C compiler (blas.py's router),
#     PortAudio, ffmpeg; for the tests espeak-ng, sox, tmux and the virtual microphone's PulseAudio +
#     ALSA plugin, chromium + chromium-driver for the server page's browser test (tests never install)
#   - a virtual environment in .venv with the package installed in editable mode (+ test extras)
#   - on Linux, the fastest BLAS installed preloaded (on x86-64 MKL from the venv, with OpenBLAS for
#     products of many rows; else OpenBLAS; the choice is mlx_qwen3asr/runtime/blas.py's): the mlx[cpu]
#     wheel links a reference BLAS (~4 GFLOP/s vs ~250)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${MLX_QWEN3ASR_VENV:-$ROOT/.venv}"
DEBIAN_PACKAGES="libopenblas0-pthread gcc libc6-dev libportaudio2 ffmpeg espeak-ng sox tmux
  pulseaudio pulseaudio-utils libasound2-plugins alsa-utils xvfb xclip xdotool x11-utils python3-tk
  chromium chromium-driver"

ensure_debian_packages() {
  command -v apt-get >/dev/null && command -v dpkg >/dev/null || return 0
  local missing=""
  for p in $DEBIAN_PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "note: missing Debian packages:$missing (install them with sudo apt-get install$missing)" >&2
    return 0
  fi
  echo "installing Debian packages:$missing" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >&2
}

ensure_venv() {
  local stamp="$VENV/.installed-$(cksum < "$ROOT/pyproject.toml" | cut -d' ' -f1)"
  [ -f "$stamp" ] && return 0
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >&2
  "$VENV/bin/python" -m pip install -q -e "$ROOT[test]" >&2
  rm -f "$VENV"/.installed-* && touch "$stamp"
}

preload_blas() {
  [ "$(uname -s)" = Linux ] || return 0
  local exports
  exports="$("$VENV/bin/python" "$ROOT/mlx_qwen3asr/runtime/blas.py")"
  eval "$exports"
}

ensure_debian_packages
ensure_venv
preload_blas
PYTHON="$VENV/bin/python"
