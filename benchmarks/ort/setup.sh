#!/usr/bin/env bash
# Installs ONNX Runtime for the benchmarks: npm's onnxruntime-node, which
# carries libonnxruntime.so, into benchmarks/ort/node_modules, and Debian's
# nodejs and npm where they are missing. A benchmark dependency only: neither
# the build nor the tests need it.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi
# --ignore-scripts: the package's install script would download; the
# binaries it needs are in the package itself.
npm install --ignore-scripts --no-audit --no-fund
node -e "require('onnxruntime-node'); console.log('ONNX Runtime ready: ' + require('onnxruntime-node/package.json').version)"
