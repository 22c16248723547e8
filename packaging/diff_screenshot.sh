#!/usr/bin/env bash
# Takes the README's screenshot of the Schedule tab's Compare dialog: starts
# the already built studio on a virtual X display with LATHE_TUNING_RECORDS
# as the Tuning tab's records file, opens the Schedule tab (its heaviest
# kernel), Compare… (A: the default, B: the records' best), compares and
# measures both, and grabs the screen into docs/screenshots/studio-schedule-diff.png.
# Builds nothing; run `cmake --build build --target lathe-studio` first.
#   LATHE_TUNING_RECORDS=records.jsonl packaging/diff_screenshot.sh [MODEL]
#   (default MODEL: the bundled sample model; records: `lathe tune MODEL --output records.jsonl`)
set -euo pipefail
cd "$(dirname "$0")/.."

studio=${LATHE_STUDIO:-build/bin/lathe-studio}
shot=docs/screenshots/studio-schedule-diff.png
screen_size=1400x900

if [[ -z ${LATHE_TUNING_RECORDS:-} || ! -f $LATHE_TUNING_RECORDS ]]; then
  echo "diff_screenshot.sh: set LATHE_TUNING_RECORDS to a records file of the model" >&2
  exit 1
fi
source packaging/screenshot_setup.sh
screenshot_setup diff_screenshot.sh "$studio" xvfb-run import xdotool
export STUDIO="$studio" SHOT="$shot" SCREEN_SIZE="$screen_size"
mkdir -p "$XDG_DATA_HOME/Lathe/lathe-studio" "$(dirname "$shot")"
cp "$LATHE_TUNING_RECORDS" "$XDG_DATA_HOME/Lathe/lathe-studio/tuning.jsonl"

xvfb-run -a -s "-screen 0 ${screen_size}x24" bash -c '
  set -euo pipefail
  "$STUDIO" -qwindowgeometry "${SCREEN_SIZE}+0+0" "$@" &
  studio_pid=$!
  sleep 3  # loading the model and the first paint
  window=$(xdotool search --sync --name "Lathe Studio" | head -1)
  xdotool windowfocus --sync "$window"
  xdotool key --window "$window" alt+s
  sleep 4  # opening the kernel, lowering it, LLVM IR and assembly
  xdotool key --window "$window" alt+p
  dialog=$(xdotool search --sync --name "Compare Schedules" | head -1)
  # No window manager: the dialog takes the whole screen.
  xdotool windowmove "$dialog" 0 0
  xdotool windowsize "$dialog" ${SCREEN_SIZE/x/ }
  xdotool windowfocus --sync "$dialog"
  sleep 1  # reading the records
  xdotool key --window "$dialog" Return
  sleep "${COMPARE_SECONDS:-12}"  # the machine roof, lowering, compiling and 2 x 2 x 20 runs
  import -window root "$SHOT"
  kill "$studio_pid"
  wait "$studio_pid" 2>/dev/null || true
' diff_screenshot "$@"
echo "wrote $shot"
