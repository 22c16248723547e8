#!/usr/bin/env bash
# Renders the icon's PNG sizes from lathe-studio.svg (rsvg-convert, Debian's
# librsvg2-bin). Run by hand after editing the SVG and commit the PNGs: the
# build installs them and needs no converter.
set -euo pipefail
cd "$(dirname "$0")"
for size in 16 24 32 48 64 128 256; do
  rsvg-convert --width "$size" --height "$size" lathe-studio.svg --output "lathe-studio-$size.png"
done
