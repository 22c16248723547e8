#!/usr/bin/env bash
# Installs what is missing, builds, and starts the studio on the bundled sample
# model (or on the model given as argument). The README's first command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build --target lathe-studio lathe
exec ./build/bin/lathe-studio "$@"
