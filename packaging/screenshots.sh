#!/usr/bin/env bash
# Takes the documentation's screenshots: starts the already built studio on a
# virtual X display and grabs the screen into docs/screenshots/: the window as
# it opens with a node found by the graph search in the inspector
# (INSPECT_NODE, default a convolution of the sample), then the Schedule tab with its heaviest kernel measured once, then
# the Benchmark tab with the model's builds measured: untuned, and tuned when
# LATHE_TUNING_RECORDS names a records file (copied to where the Tuning tab
# writes its records), then the Tuning tab after a minute of tuning the model (its records go
# to the throwaway data folder). Builds nothing; run `cmake --build build --target lathe-studio` first.
#   [LATHE_TUNING_RECORDS=records.jsonl] packaging/screenshots.sh [MODEL]
#   (default MODEL: the bundled sample model)
set -euo pipefail
cd "$(dirname "$0")/.."

studio=${LATHE_STUDIO:-build/bin/lathe-studio}
shot=docs/screenshots/studio-main.png
schedule_shot=docs/screenshots/studio-schedule.png
benchmark_shot=docs/screenshots/studio-benchmark.png
tuning_shot=docs/screenshots/studio-tuning.png
screen_size=1400x900

if [[ ! -x $studio ]]; then
  echo "screenshots.sh: $studio is not built" >&2
  exit 1
fi

apt_install() {
  local sudo=
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get install -y --no-install-recommends "$@"
}
command -v xvfb-run >/dev/null || apt_install xvfb xauth
# ImageMagick's screen grabber; Debian bookworm does not install it by default.
command -v import >/dev/null || apt_install imagemagick
# Presses the studio's keys (Alt+S: the Schedule tab, Alt+M: Measure).
command -v xdotool >/dev/null || apt_install xdotool

mkdir -p "$(dirname "$shot")"
# Throwaway settings and data folders: the user's recent files, window layout
# and schedule edits must neither show in the pictures nor be changed by this run.
config_home=$(mktemp -d)
trap 'rm -rf "$config_home"' EXIT

export STUDIO="$studio" SHOT="$shot" SCHEDULE_SHOT="$schedule_shot" SCREEN_SIZE="$screen_size"
export BENCHMARK_SHOT="$benchmark_shot" TUNING_SHOT="$tuning_shot"
export XDG_CONFIG_HOME="$config_home/config" XDG_DATA_HOME="$config_home/data"
# The Benchmark tab checks its tuned build when the Tuning tab's records file exists.
if [[ -n ${LATHE_TUNING_RECORDS:-} ]]; then
  mkdir -p "$XDG_DATA_HOME/Lathe/lathe-studio"
  cp "$LATHE_TUNING_RECORDS" "$XDG_DATA_HOME/Lathe/lathe-studio/tuning.jsonl"
fi
xvfb-run -a -s "-screen 0 ${screen_size}x24" bash -c '
  set -euo pipefail
  # Without a window manager nothing places or sizes the window: ask Qt for the whole screen.
  "$STUDIO" -qwindowgeometry "${SCREEN_SIZE}+0+0" "$@" &
  studio_pid=$!
  sleep 3  # loading the model and the first paint
  if ! kill -0 "$studio_pid" 2>/dev/null; then
    echo "screenshots.sh: lathe-studio exited early" >&2
    exit 1
  fi
  # Without a window manager nothing gives the window the keyboard: focus it.
  window=$(xdotool search --sync --name "Lathe Studio" | head -1)
  xdotool windowfocus --sync "$window"
  # Ctrl+F: the graph search; the node found is shown in the inspector.
  xdotool key --window "$window" ctrl+f
  xdotool type --window "$window" "${INSPECT_NODE:-block.conv1/conv}"
  xdotool key --window "$window" Return
  sleep 1
  import -window root "$SHOT"
  xdotool key --window "$window" alt+s
  sleep 4  # opening the kernel, lowering it, LLVM IR and assembly
  xdotool key --window "$window" alt+m
  sleep 12  # the peak, the reference outputs, compiling and 50 runs
  import -window root "$SCHEDULE_SHOT"
  xdotool key --window "$window" alt+b
  sleep 1
  xdotool key --window "$window" alt+r
  sleep "${BENCHMARK_SECONDS:-30}"  # compiling, JIT-compiling, timing and profiling each build
  import -window root "$BENCHMARK_SHOT"
  # Alt+U: the Tuning tab; Alt+T: Start, with the default options.
  xdotool key --window "$window" alt+u
  sleep 1
  xdotool key --window "$window" alt+t
  sleep "${TUNING_SECONDS:-60}"  # planning, building and measuring candidates
  import -window root "$TUNING_SHOT"
  kill "$studio_pid"
  wait "$studio_pid" 2>/dev/null || true
' screenshots "$@"
echo "wrote $shot, $schedule_shot, $benchmark_shot and $tuning_shot"
