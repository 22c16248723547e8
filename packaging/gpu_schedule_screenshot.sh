#!/usr/bin/env bash
# The screenshot of the Schedule tab for a GPU target: the already built
# studio opens MODEL with --target "cuda -arch=sm_90" on a virtual X display,
# shows the Schedule tab (its heaviest kernel with the default GPU schedule,
# its binds to blockIdx/threadIdx), and Side by Side puts the PTX beside the
# loop IR with its thread_binding loops, and Check on simulator runs the
# kernel on the GPU simulator (its verdict in the status line); the screen is grabbed into
# docs/screenshots/studio-gpu-schedule.png. Builds nothing; needs no GPU.
#   [TARGET=...] packaging/gpu_schedule_screenshot.sh [MODEL]
#   (default MODEL: build/models/resnet18.onnx, the test models' ResNet-18)
set -euo pipefail
cd "$(dirname "$0")/.."

studio=${LATHE_STUDIO:-build/bin/lathe-studio}
shot=docs/screenshots/studio-gpu-schedule.png
# Wide enough for the default GPU schedule's long fused loop names in three panes.
screen_size=${SCREEN_SIZE:-2560x1280}
model=${1:-build/models/resnet18.onnx}
source packaging/screenshot_setup.sh
screenshot_setup gpu_schedule_screenshot.sh "$studio" xvfb-run import xdotool
export STUDIO="$studio" MODEL="$model" SHOT="$shot" SCREEN_SIZE="$screen_size"
export TARGET=${TARGET:-cuda -arch=sm_90}
xvfb-run -a -s "-screen 0 ${screen_size}x24" bash -c '
  set -euo pipefail
  "$STUDIO" -qwindowgeometry "${SCREEN_SIZE}+0+0" --target "$TARGET" "$MODEL" &
  studio_pid=$!
  sleep 4  # loading the model and its graph passes
  window=$(xdotool search --sync --name "Lathe Studio" | head -1)
  xdotool windowfocus --sync "$window"
  # View: the Inspector, Fused Groups and Model docks closed, for the code'"'"'s room.
  xdotool key --window "$window" alt+v Down Down Down Down Return
  xdotool key --window "$window" alt+v Down Down Down Return
  xdotool key --window "$window" alt+v Down Down Return
  xdotool key --window "$window" alt+s
  sleep "${SCHEDULE_SECONDS:-8}"  # opening the kernel, lowering it, the LLVM IR and the PTX
  xdotool key --window "$window" alt+d  # Side by Side: the PTX beside the loop IR
  xdotool key --window "$window" alt+k  # Check on simulator
  sleep "${CHECK_SECONDS:-10}"
  import -window root "$SHOT"
  kill "$studio_pid"
  wait "$studio_pid" 2>/dev/null || true
'
echo "wrote $shot"
