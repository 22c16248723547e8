#!/usr/bin/env bash
# Screenshots of the studio's graph tab on large models: for each MODEL the
# already built studio opens it on a virtual X display and the screen is
# grabbed into docs/screenshots/studio-graph-NAME.png once both panes are
# drawn. Builds nothing; the default models are the test models DenseNet-121
# and the 24-layer transformer encoder (build/models, exported by ctest's
# test_models fixture or `cmake --build build --target lathe_test_models`).
#   packaging/graph_screenshots.sh [MODEL.onnx ...]
set -euo pipefail
cd "$(dirname "$0")/.."

studio=${LATHE_STUDIO:-build/bin/lathe-studio}
screen_size=1400x900
models=("$@")
[[ ${#models[@]} -gt 0 ]] || models=(build/models/densenet121.onnx build/models/transformer_encoder24.onnx)
source packaging/screenshot_setup.sh
screenshot_setup graph_screenshots.sh "$studio" xvfb-run import
for model in "${models[@]}"; do
  shot=docs/screenshots/studio-graph-$(basename "$model" .onnx).png
  STUDIO="$studio" MODEL="$model" SHOT="$shot" SCREEN_SIZE="$screen_size" \
    xvfb-run -a -s "-screen 0 ${screen_size}x24" bash -c '
      set -euo pipefail
      "$STUDIO" -qwindowgeometry "${SCREEN_SIZE}+0+0" "$MODEL" &
      studio_pid=$!
      sleep "${GRAPH_SECONDS:-8}"  # loading, the passes and both layouts
      import -window root "$SHOT"
      kill "$studio_pid"
    '
  echo "wrote $shot"
done
