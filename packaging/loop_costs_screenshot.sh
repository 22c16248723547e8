#!/usr/bin/env bash
# The screenshot of the Schedule tab's annotated loop IR: the already built
# studio opens MODEL on a virtual X display, shows the Schedule tab (its
# heaviest kernel, lowered with each loop's costs), and the mouse rests on
# the gutter of line HOVER_LINE (default 8: the pixel-chunk loop of ResNet-18's
# heaviest conv, marked) so that the mark's explanation shows (GUTTER_X,
# GUTTER_TOP and LINE_HEIGHT place the gutter on the screen); the screen is
# grabbed into docs/screenshots/studio-loop-costs.png. Builds nothing.
#   [HOVER_LINE=N] packaging/loop_costs_screenshot.sh [MODEL]
#   (default MODEL: build/models/resnet18.onnx, the test models' ResNet-18)
set -euo pipefail
cd "$(dirname "$0")/.."

studio=${LATHE_STUDIO:-build/bin/lathe-studio}
shot=docs/screenshots/studio-loop-costs.png
screen_size=${SCREEN_SIZE:-1920x1080}
model=${1:-build/models/resnet18.onnx}
source packaging/screenshot_setup.sh
screenshot_setup loop_costs_screenshot.sh "$studio" xvfb-run import xdotool
export STUDIO="$studio" MODEL="$model" SHOT="$shot" SCREEN_SIZE="$screen_size"
export HOVER_LINE=${HOVER_LINE:-8}
xvfb-run -a -s "-screen 0 ${screen_size}x24" bash -c '
  set -euo pipefail
  "$STUDIO" -qwindowgeometry "${SCREEN_SIZE}+0+0" "$MODEL" &
  studio_pid=$!
  sleep 4  # loading the model and its graph passes
  window=$(xdotool search --sync --name "Lathe Studio" | head -1)
  xdotool windowfocus --sync "$window"
  xdotool key --window "$window" alt+s
  sleep "${SCHEDULE_SECONDS:-10}"  # opening the kernel, lowering it, the machine roof, the code
  # The loop IR gutter at 1920x1080: its first line at y = GUTTER_TOP, lines
  # LINE_HEIGHT pixels apart.
  xdotool mousemove --sync "${GUTTER_X:-902}" \
    $(( ${GUTTER_TOP:-185} + (HOVER_LINE - 1) * ${LINE_HEIGHT:-14} ))
  sleep 2
  import -window root "$SHOT"
  kill "$studio_pid"
  wait "$studio_pid" 2>/dev/null || true
'
echo "wrote $shot"
