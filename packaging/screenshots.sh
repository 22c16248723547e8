#!/usr/bin/env bash
# Takes the documentation's screenshots: starts the already built studio on a
# virtual X display and grabs the screen into docs/screenshots/. Builds
# nothing; run `cmake --build build --target lathe-studio` first.
#   packaging/screenshots.sh [MODEL]   (default: the bundled sample model)
set -euo pipefail
cd "$(dirname "$0")/.."

studio=${LATHE_STUDIO:-build/bin/lathe-studio}
shot=docs/screenshots/studio-main.png
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

mkdir -p "$(dirname "$shot")"
# A throwaway settings folder: the user's recent files and window layout must
# neither show in the picture nor be overwritten by this run.
config_home=$(mktemp -d)
trap 'rm -rf "$config_home"' EXIT

export STUDIO="$studio" SHOT="$shot" SCREEN_SIZE="$screen_size" XDG_CONFIG_HOME="$config_home"
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
  import -window root "$SHOT"
  kill "$studio_pid"
  wait "$studio_pid" 2>/dev/null || true
' screenshots "$@"
echo "wrote $shot"
