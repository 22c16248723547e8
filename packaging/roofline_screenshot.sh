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

for tool in xvfb-run import xdotool; do
  command -v $tool >/dev/null || {
    echo "roofline_screenshot.sh: needs $tool (packaging/screenshots.sh installs it)" >&2
    exit 1
  }
done
if [[ ! -x $studio ]]; then
  echo "roofline_screenshot.sh: $studio is not built" >&2
  exit 1
fi

# Throwaway settings, data and cache folders: the user's recent files, window
# layout, records and kept machine measurement neither show in the picture nor change.
config_home=$(mktemp -d)
trap 'rm -rf "$config_home"' EXIT
export STUDIO="$studio" SHOT="$shot" SCREEN_SIZE="$screen_size" MODEL="$model"
export XDG_CONFIG_HOME="$config_home/config" XDG_DATA_HOME="$config_home/data"
export XDG_CACHE_HOME="$config_home/cache"
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
