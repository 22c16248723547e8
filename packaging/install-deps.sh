#!/usr/bin/env bash
# Installs every Debian bookworm package Lathe builds, tests or runs with.
# Idempotent and non-interactive: packages already present are skipped, and
# nothing is touched when all of them are.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config clang-format
  # Qt 6 (Widgets, Concurrent, Svg, PrintSupport, Test)
  qt6-base-dev qt6-svg-dev libgl-dev
  # compiler back end
  llvm-19-dev libzstd-dev zlib1g-dev libxml2-dev libedit-dev libffi-dev libcurl4-openssl-dev
  # ONNX front end and its conformance data
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  # views
  libqcustomplot-dev libgraphviz-dev
  # formats, tuning, command line
  nlohmann-json3-dev libarchive-dev libxgboost-dev xgboost libcli11-dev
  # the test models: exported from PyTorch, the oracle (tools/models/export_models.py)
  python3-torch python3-torchvision python3-onnx
  # optional: oneDNN for plugins/dnnl (CMake skips that plugin, saying so, without it)
  # (its CMake config asks for OpenCL, which libdnnl-dev only recommends)
  libdnnl-dev ocl-icd-opencl-dev
  # screenshots of the studio
  xvfb xauth xdotool
  # the install test (tests/packaging): checks the menu entry and the MIME types
  # (gio asks shared-mime-info what a file is, as file managers do)
  desktop-file-utils shared-mime-info libglib2.0-bin
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
# ONNX Runtime, for bench_models and the test of the Benchmark tab's ONNX
# Runtime row: Node and npm run npm's onnxruntime-node, which
# benchmarks/ort/setup.sh installs. Any node and npm on the PATH will do (a
# NodeSource nodejs brings its own npm, which Debian's npm would conflict with).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
