#!/usr/bin/env bash
# Takes the README's roofline screenshot: starts the already built studio on a
# virtual X display with MODEL, runs the Benchmark tab's untuned build, shows
# its Roofline tab and grabs the screen into docs/screenshots/studio-roofline.png.
# The machine's peak and bandwidths are measured during the run. Builds nothing; run
# `cmake --build build --target lathe-studio` first.
#   packaging/roofline_screenshot.sh [MODEL]   (default: build/models/resnet18.onnx)
set -euo pipefail
cd "$(dirname "$0")/.."

studio=${LATHE_STUDIO:-build/bin/lathe-studio}
shot=docs/screenshots/studio-roofline.png
# Larger than screenshots.sh takes, so the chart beside the kernel table has room.
screen_size=1600x1000
model=${1:-build/models/resnet18.onnx}

source packaging/screenshot_setup.sh
screenshot_setup roofline_screenshot.sh "$studio" xvfb-run import xdotool
export STUDIO="$studio" SHOT="$shot" SCREEN_SIZE="$screen_size" MODEL="$model"
xvfb-run -a -s "-screen 0 ${screen_size}x24" bash -c '
  set -euo pipefail
  "$STUDIO" -qwindowgeometry "${SCREEN_SIZE}+0+0" "$MODEL" &
  studio_pid=$!
  sleep 4  # loading the model and the first paint
  window=$(xdotool search --sync --name "Lathe Studio" | head -1)
  xdotool windowfocus --sync "$window"
  # Alt+B: the Benchmark tab; Alt+R: Run; Alt+O: its Roofline tab.
  xdotool key --window "$window" alt+b
  sleep 1
  xdotool key --window "$window" alt+r
  sleep "${BENCHMARK_SECONDS:-45}"  # compiling, timing, profiling, the roofline
  xdotool key --window "$window" alt+o
  sleep 1
  import -window root "$SHOT"
  kill "$studio_pid"
  wait "$studio_pid" 2>/dev/null || true
'
echo "wrote $shot"
