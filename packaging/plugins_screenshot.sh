#!/usr/bin/env bash
# Takes the README's Plugins screenshot: starts the already built studio on a
# virtual X display with the dnnl plugin loaded (--plugin dnnl) and MODEL open,
# opens Plugins › Load Plugins… and grabs the dialog into
# docs/screenshots/studio-plugins.png. Builds nothing; run
# `cmake --build build --target lathe-studio lathe_plugin_dnnl` first.
#   packaging/plugins_screenshot.sh [MODEL]   (default: resources/sample_cnn.onnx)
set -euo pipefail
cd "$(dirname "$0")/.."

studio=${LATHE_STUDIO:-build/bin/lathe-studio}
shot=docs/screenshots/studio-plugins.png
screen_size=1280x800
model=${1:-resources/sample_cnn.onnx}

source packaging/screenshot_setup.sh
screenshot_setup plugins_screenshot.sh "$studio" xvfb-run import xdotool
export STUDIO="$studio" SHOT="$shot" SCREEN_SIZE="$screen_size" MODEL="$model"
xvfb-run -a -s "-screen 0 ${screen_size}x24" bash -c '
  set -euo pipefail
  "$STUDIO" --plugin dnnl -qwindowgeometry "${SCREEN_SIZE}+0+0" "$MODEL" &
  studio_pid=$!
  sleep 4  # loading the model and the first paint
  window=$(xdotool search --sync --name "Lathe Studio" | head -1)
  xdotool windowfocus --sync "$window"
  # Alt+P: the Plugins menu; Return: its one item, Load Plugins…
  xdotool key --window "$window" alt+p
  sleep 1
  xdotool key Return
  dialog=$(xdotool search --sync --name "^Plugins$" | head -1)
  sleep 1  # the dialog describes each plugin on the path
  import -window "$dialog" "$SHOT"
  kill "$studio_pid"
  wait "$studio_pid" 2>/dev/null || true
'
echo "wrote $shot"
