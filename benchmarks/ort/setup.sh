#!/usr/bin/env bash
# Installs ONNX Runtime for the benchmarks: npm's onnxruntime-node, which
# carries libonnxruntime.so, into benchmarks/ort/node_modules, and Debian's
# nodejs and npm where they are missing. The build does not need it; the test
# of the Benchmark tab's ONNX Runtime row runs with it and skips, saying so,
# without it (packaging/check.sh, what CI runs, calls this script first).
# Idempotent: with package.json's version already installed it downloads nothing.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi
wanted=$(node -p "require('./package.json').dependencies['onnxruntime-node']")
installed=$(node -p "try { require('onnxruntime-node/package.json').version } catch (e) { '' }")
if [ "$installed" != "$wanted" ]; then
  # --ignore-scripts: the package's install script would download; the
  # binaries it needs are in the package itself.
  npm install --ignore-scripts --no-audit --no-fund
fi
node -e "require('onnxruntime-node'); console.log('ONNX Runtime ready: ' + require('onnxruntime-node/package.json').version)"
