#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the whole
# test suite. The README's second command and what CI runs. ONNX Runtime
# (npm's onnxruntime-node, into benchmarks/ort) is set up too, so that the
# test of the Benchmark tab's ONNX Runtime row runs instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
bash benchmarks/ort/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLATHE_WERROR=ON
cmake --build build
ctest --test-dir build --output-on-failure --timeout 1200
