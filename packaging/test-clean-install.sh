#!/usr/bin/env bash
# Installs the .debs of a build on a clean Debian bookworm and checks, there,
# what a user of the packages gets:
#   sudo bash packaging/test-clean-install.sh BUILD_DIR
#
# The clean system is a minbase debootstrap in a chroot: no compiler, no Qt,
# no LLVM, nothing of the build machine's. The script makes the packages
# (`cmake --build BUILD_DIR --target package`), installs lathe_*.deb with
# apt-get (dependencies from the mirror the machine's own apt uses), then
# lathe-plugin-dnnl_*.deb when the build made it, and fails on the first miss:
#   - lathe --version; lathe compile the sample model; lathe run the package;
#   - lathe-studio --quit-when-shown on the model (offscreen);
#   - the menu entry: desktop-file-validate, its Exec and Icon resolve, the
#     MIME types registered (shared-mime-info) and opened by the entry;
#   - the runtime SDK: a C program built with pkg-config lathe-runtime, and
#     one with CMake's find_package(LatheRuntime), run the package with
#     LD_LIBRARY_PATH unset and give lathe run's bytes;
#   - with lathe-plugin-dnnl: lathe run --plugin dnnl matches lathe run.
# Needs root (debootstrap, chroot, mounts), network to the Debian mirror and
# a few minutes. Not a ctest: the ctest install_staging checks a staging root.
#
# Caches, so that a second run is fast: the minbase tree in
# /var/cache/lathe-clean-install/bookworm-minbase (copied afresh for each run)
# and the .debs apt downloads in /var/cache/lathe-clean-install/archives.
# KEEP_ROOT=1 keeps the run's root (under /var/tmp) for a look afterwards.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
if [[ $EUID -ne 0 ]]; then
  echo "test-clean-install: needs root (debootstrap, chroot, mount)" >&2
  exit 2
fi
BUILD_DIR=$(realpath "$1")
SOURCE_DIR=$(realpath "$(dirname "${BASH_SOURCE[0]}")/..")
CACHE=/var/cache/lathe-clean-install
SUITE=bookworm

step() { printf '\n== %s\n' "$*"; }
die() {
  printf 'test-clean-install: FAILED: %s\n' "$*" >&2
  exit 1
}

# The first URI of an enabled `deb` source for `suite` in the machine's apt
# configuration (one-line sources.list and deb822 .sources files alike).
apt_source_uri() {
  local suite=$1
  {
    if [[ -f /etc/apt/sources.list ]]; then
      awk -v suite="$suite" '$1 == "deb" {
          i = 2  # the URI, after the [options] if any
          if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
          if ($(i + 1) == suite) print $i
        }' /etc/apt/sources.list
    fi
    for f in /etc/apt/sources.list.d/*.sources; do
      [[ -f $f ]] || continue
      awk -v suite="$suite" 'BEGIN { RS = ""; FS = "\n" }
        {
          types = ""; uris = ""; suites = ""; enabled = "yes"
          for (n = 1; n <= NF; n++) {
            line = $n
            if (line ~ /^#/) continue
            if (sub(/^Types:[ \t]*/, "", line)) types = line
            else if (sub(/^URIs:[ \t]*/, "", line)) uris = line
            else if (sub(/^Suites:[ \t]*/, "", line)) suites = line
            else if (sub(/^Enabled:[ \t]*/, "", line)) enabled = line
          }
          if (enabled == "no" || (" " types " ") !~ / deb /) next
          if ((" " suites " ") ~ (" " suite " ")) { split(uris, u, /[ \t]+/); print u[1] }
        }' "$f"
    done
  } | head -n 1
}

MIRROR=$(apt_source_uri "$SUITE")
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY=$(apt_source_uri "$SUITE-security")
SECURITY=${SECURITY:-http://deb.debian.org/debian-security}
echo "mirror: $MIRROR (security: $SECURITY)"

step "packages: cmake --build $BUILD_DIR --target package"
cmake --build "$BUILD_DIR" --target package > /dev/null
shopt -s nullglob
main_debs=("$BUILD_DIR"/lathe_*.deb)
dnnl_debs=("$BUILD_DIR"/lathe-plugin-dnnl_*.deb)
shopt -u nullglob
[[ ${#main_debs[@]} -eq 1 ]] || die "expected one lathe_*.deb in $BUILD_DIR, found ${#main_debs[@]}"
[[ ${#dnnl_debs[@]} -le 1 ]] || die "more than one lathe-plugin-dnnl_*.deb in $BUILD_DIR"
version=$(dpkg-deb --field "${main_debs[0]}" Version)
for deb in "${main_debs[@]}" "${dnnl_debs[@]}"; do
  printf '%s: %s bytes, Installed-Size %s KiB\n  Depends: %s\n' "$(basename "$deb")" \
    "$(stat -c %s "$deb")" "$(dpkg-deb --field "$deb" Installed-Size)" \
    "$(dpkg-deb --field "$deb" Depends)"
done

step "the clean system: debootstrap --variant=minbase $SUITE"
if ! command -v debootstrap > /dev/null; then
  apt-get install -y debootstrap > /dev/null
fi
base=$CACHE/$SUITE-minbase
if [[ ! -x $base/usr/bin/apt-get ]]; then
  rm -rf "$base.partial"
  mkdir -p "$CACHE"
  debootstrap --variant=minbase "$SUITE" "$base.partial" "$MIRROR" > "$CACHE/debootstrap.log" ||
    die "debootstrap failed; see $CACHE/debootstrap.log"
  mv "$base.partial" "$base"
else
  echo "from the cache: $base"
fi
mkdir -p "$CACHE/archives/partial"
root=$(mktemp -d /var/tmp/lathe-clean-install.XXXXXX)
cp -a "$base/." "$root/"
echo "root: $root"

# Mounts, undone on any exit; the root is removed only when nothing is
# mounted below it any more (a bound /dev must never be deleted through it).
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" || umount -l "${mounted[i]}" || true
  done
  if grep -q " $root/" /proc/mounts; then
    echo "test-clean-install: $root still has mounts; not removed" >&2
  elif [[ ${KEEP_ROOT:-0} == 1 ]]; then
    echo "kept: $root"
  else
    rm -rf "$root"
  fi
}
trap cleanup EXIT
bind() {
  mkdir -p "$root/$2"
  mount "${@:3}" "$1" "$root/$2"
  mounted+=("$root/$2")
}
bind proc proc -t proc
bind sysfs sys -t sysfs
bind /dev dev --bind
bind devpts dev/pts -t devpts
bind "$CACHE/archives" var/cache/apt/archives --bind
cp /etc/resolv.conf "$root/etc/resolv.conf"
cat > "$root/etc/apt/sources.list" << EOF
deb $MIRROR $SUITE $SUITE-updates main
deb $SECURITY $SUITE-security main
EOF
# Keep what apt downloads, for the next run (Debian's docker-style default deletes it).
rm -f "$root/etc/apt/apt.conf.d/docker-clean"

# Runs a command in the clean system, with a clean environment: no
# LD_LIBRARY_PATH, nothing of the build's.
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
# What in_root printed, or die naming the command and showing its output.
check() {
  local output status=0
  output=$(in_root "$@" 2>&1) || status=$?
  if [[ $status -ne 0 ]]; then
    printf '%s\n' "$output" | tail -n 30 >&2
    die "'$*' exited with $status"
  fi
  if [[ -n $output ]]; then printf '%s\n' "$output"; fi
}
apt_install() {
  # --no-install-recommends: what a Depends misses shows, not hidden behind a
  # package some recommended package happens to pull in.
  check apt-get install -y --no-install-recommends "$@" | grep -E '^(Setting up|E:)' | sed 's/^/  /'
}

step "apt-get install ./$(basename "${main_debs[0]}")"
mkdir -p "$root/root/debs" "$root/root/work"
cp "${main_debs[@]}" "${dnnl_debs[@]}" "$root/root/debs/"
check apt-get update > /dev/null
apt_install "/root/debs/$(basename "${main_debs[0]}")"
status=$(in_root dpkg-query -W -f '${Status}' lathe)
[[ $status == "install ok installed" ]] || die "lathe is not installed: $status"

step "lathe"
out=$(check lathe --version)
echo "  lathe --version: $out"
[[ $out == "lathe $version" ]] || die "lathe --version says '$out', not 'lathe $version'"
cp "$SOURCE_DIR/resources/sample_cnn.onnx" "$root/root/work/"
# Inputs with values, so that an output is no constant: the first input of
# the model, filled with a sawtooth, as .npz (for lathe) and raw (for the C program).
# "Inputs:" then "  NAME  DTYPE[D0,D1,...]" in lathe inspect's report.
read -r input_name input_type < <(check lathe inspect /root/work/sample_cnn.onnx |
  awk '/^Inputs:/ { getline; print; exit }')
input_shape=${input_type#*[}
input_shape=${input_shape%]}
[[ -n $input_shape ]] || die "lathe inspect names no input of sample_cnn.onnx"
IFS=, read -r -a input_dims <<< "$input_shape"
echo "  input: $input_name ${input_type%%[*} ${input_dims[*]}"
/usr/bin/python3 - "$root/root/work" "$input_name" "${input_type%%[*}" "${input_dims[@]}" << 'EOF'
import struct, sys, zipfile
folder, name, dtype, *shape = sys.argv[1:]
assert dtype == "float32", dtype
count = 1
for d in shape:
    count *= int(d)
raw = struct.pack(f"<{count}f", *((i % 17) / 17.0 - 0.5 for i in range(count)))
with open(f"{folder}/input.bin", "wb") as f:
    f.write(raw)
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
    "".join(f"{d}, " for d in shape) if len(shape) == 1 else ", ".join(shape))
header += " " * (63 - (len(header) + 10) % 64) + "\n"
npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + raw
with zipfile.ZipFile(f"{folder}/input.npz", "w") as npz:
    npz.writestr(f"{name}.npy", npy)
EOF
check sh -c 'cd /root/work && lathe compile sample_cnn.onnx' | tail -n 1 | sed 's/^/  /'
[[ -f $root/root/work/module.lathe.tar ]] || die "lathe compile wrote no module.lathe.tar"
echo "  module.lathe.tar: $(stat -c %s "$root/root/work/module.lathe.tar") bytes"
check lathe run /root/work/module.lathe.tar --inputs /root/work/input.npz \
  --output /root/work/lathe_run.npz > /dev/null
check lathe run /root/work/module.lathe.tar --output /root/work/lathe_run_zeros.npz > /dev/null
echo "  lathe run module.lathe.tar (the sawtooth input, and zeros): exit 0"

step "lathe-studio"
check sh -c 'QT_QPA_PLATFORM=offscreen lathe-studio --quit-when-shown /root/work/sample_cnn.onnx' \
  > /dev/null
echo "  QT_QPA_PLATFORM=offscreen lathe-studio --quit-when-shown sample_cnn.onnx: exit 0"

step "the menu entry"
apt_install desktop-file-utils
desktop=/usr/share/applications/lathe-studio.desktop
[[ -f $root$desktop ]] || die "no $desktop"
check desktop-file-validate "$desktop"
echo "  desktop-file-validate $desktop: exit 0"
exec_line=$(sed -n 's/^Exec=//p' "$root$desktop")
program=$(check sh -c "command -v ${exec_line%% *}") || die "Exec=$exec_line does not resolve"
echo "  Exec=$exec_line -> $program"
icon=$(sed -n 's/^Icon=//p' "$root$desktop")
icons=$(cd "$root" && find usr/share/icons/hicolor -path "*/apps/$icon.*" | sort)
for size in 16x16 32x32 48x48 64x64 128x128 256x256 scalable; do
  grep -q "hicolor/$size/apps/$icon\." <<< "$icons" || die "no $size icon named $icon: $icons"
done
echo "  Icon=$icon: $(wc -l <<< "$icons") files"
[[ -f $root/usr/share/icons/hicolor/index.theme ]] ||
  die "the hicolor icon theme (index.theme) is not installed: the menu cannot look the icon up"
echo "  hicolor/index.theme: present"
# globs2 lines are WEIGHT:TYPE:GLOB.
for type in application/x-onnx application/x-lathe-package; do
  grep -q "^[0-9]*:$type:" "$root/usr/share/mime/globs2" 2> /dev/null ||
    die "$type is not in /usr/share/mime/globs2 (update-mime-database did not run)"
  grep -q "^$type=.*lathe-studio.desktop" "$root/usr/share/applications/mimeinfo.cache" ||
    die "$type is not opened by lathe-studio.desktop (mimeinfo.cache)"
done
echo "  globs2: $(grep -E '^[0-9]+:application/x-(onnx|lathe-package):' "$root/usr/share/mime/globs2" |
  tr '\n' ' ')"
echo "  mimeinfo.cache: $(grep -E '^application/x-(onnx|lathe-package)=' \
  "$root/usr/share/applications/mimeinfo.cache" | tr '\n' ' ')"

step "the runtime SDK"
apt_install gcc pkg-config cmake make
cp "$SOURCE_DIR/tests/runtime/lathe_run_package.c" "$root/root/work/"
cp -r "$SOURCE_DIR/tests/packaging/sdk_consumer" "$root/root/work/"
flags=$(check pkg-config --cflags --libs lathe-runtime)
echo "  pkg-config --cflags --libs lathe-runtime: $flags"
check sh -c 'cd /root/work && gcc -std=c99 -Wall -Werror lathe_run_package.c -o lathe_run_package \
  $(pkg-config --cflags --libs lathe-runtime)'
check /root/work/lathe_run_package /root/work/module.lathe.tar /root/work/input.bin \
  /root/work/pkg-config.bin | sed 's/^/  lathe_run_package: /'
check cmake -S /root/work/sdk_consumer -B /root/work/consumer-build > /dev/null
check cmake --build /root/work/consumer-build > /dev/null
check /root/work/consumer-build/lathe_sdk_consumer /root/work/module.lathe.tar \
  /root/work/cmake.bin > /dev/null
echo "  find_package(LatheRuntime) consumer: exit 0"
# Both give lathe run's bytes (the package's own kernels, the same input:
# the sawtooth for lathe_run_package, zeros for the CMake consumer).
/usr/bin/python3 - "$root/root/work" << 'EOF' || die "the SDK programs' outputs differ"
import struct, sys, zipfile
folder = sys.argv[1]
def npy_data(path, name):
    with zipfile.ZipFile(path) as npz:
        npy = npz.read(name + ".npy")
    size, offset = (struct.unpack("<H", npy[8:10])[0], 10) if npy[6] == 1 else (
        struct.unpack("<I", npy[8:12])[0], 12)
    return npy[offset + size:]
for program, output, run in (("lathe_run_package (pkg-config)", "pkg-config.bin", "lathe_run.npz"),
                             ("lathe_sdk_consumer (CMake)", "cmake.bin", "lathe_run_zeros.npz")):
    expected = npy_data(f"{folder}/{run}", "output_0")
    got = open(f"{folder}/{output}", "rb").read()
    if got != expected:
        sys.exit(f"{program}: its {len(got)} bytes differ from lathe run's {len(expected)}")
    print(f"  {program}: output 0 == lathe run's output_0 ({len(got)} bytes)")
EOF

if [[ ${#dnnl_debs[@]} -eq 1 ]]; then
  step "apt-get install ./$(basename "${dnnl_debs[0]}")"
  apt_install "/root/debs/$(basename "${dnnl_debs[0]}")"
  check lathe run /root/work/sample_cnn.onnx --inputs /root/work/input.npz \
    --output /root/work/lathe.npz > /dev/null
  check lathe run /root/work/sample_cnn.onnx --plugin dnnl --inputs /root/work/input.npz \
    --output /root/work/dnnl.npz > /dev/null
  echo "  lathe run --plugin dnnl sample_cnn.onnx: exit 0"
  /usr/bin/python3 - "$root/root/work" "$SOURCE_DIR" << 'EOF' || die "lathe run --plugin dnnl does not match"
import os, struct, sys, zipfile
folder = sys.argv[1]
sys.path.insert(0, os.path.join(sys.argv[2], "tests", "packaging"))
from check_install import normalized_error
def arrays(path):
    out = {}
    with zipfile.ZipFile(path) as npz:
        for member in npz.namelist():
            npy = npz.read(member)
            size, offset = (struct.unpack("<H", npy[8:10])[0], 10) if npy[6] == 1 else (
                struct.unpack("<I", npy[8:12])[0], 12)
            data = npy[offset + size:]
            out[member] = struct.unpack(f"<{len(data) // 4}f", data)
    return out
lathe, dnnl = arrays(f"{folder}/lathe.npz"), arrays(f"{folder}/dnnl.npz")
if lathe.keys() != dnnl.keys():
    sys.exit(f"outputs {sorted(dnnl)} differ from {sorted(lathe)}")
for name, want in lathe.items():
    error = normalized_error(dnnl[name], want)
    print(f"  {name}: normalized error of dnnl against lathe = {error:.2e}")
    if not error <= 1e-4:
        sys.exit(f"{name} is off by {error:.2e}")
EOF
  # oneDNN ran: the profile's kernels include external calls into the plugin's runtime.
  profile=$(check lathe run /root/work/sample_cnn.onnx --plugin dnnl --profile)
  calls=$(grep -c ' lathe_dnnl_functions ' <<< "$profile" || true)
  [[ $calls -gt 0 ]] || die "lathe run --plugin dnnl --profile shows no oneDNN call:
$profile"
  echo "  lathe run --plugin dnnl --profile: $calls kernels are oneDNN calls"
  # A package with oneDNN calls runs in a C program: its mod.so finds the
  # plugin's runtime library where the package installed it.
  check sh -c 'cd /root/work && lathe compile sample_cnn.onnx --plugin dnnl --output dnnl.lathe.tar' \
    > /dev/null
  check lathe run /root/work/dnnl.lathe.tar --inputs /root/work/input.npz \
    --output /root/work/dnnl_package.npz > /dev/null
  check /root/work/lathe_run_package /root/work/dnnl.lathe.tar /root/work/input.bin \
    /root/work/dnnl_package.bin | sed 's/^/  lathe_run_package dnnl.lathe.tar: /'
  /usr/bin/python3 - "$root/root/work" << 'EOF' || die "the C program's oneDNN package run differs"
import struct, sys, zipfile
folder = sys.argv[1]
with zipfile.ZipFile(f"{folder}/dnnl_package.npz") as npz:
    npy = npz.read("output_0.npy")
size, offset = (struct.unpack("<H", npy[8:10])[0], 10) if npy[6] == 1 else (
    struct.unpack("<I", npy[8:12])[0], 12)
expected = npy[offset + size:]
got = open(f"{folder}/dnnl_package.bin", "rb").read()
if got != expected:
    sys.exit(f"lathe_run_package dnnl.lathe.tar: its {len(got)} bytes differ from lathe run's")
print(f"  lathe_run_package dnnl.lathe.tar: output 0 == lathe run's output_0 ({len(got)} bytes)")
EOF
else
  step "no lathe-plugin-dnnl_*.deb (built without oneDNN): dnnl not checked"
fi

step "installed: $(in_root dpkg-query -W -f '${Package} ${Version}\n' lathe lathe-plugin-dnnl 2> /dev/null |
  tr '\n' ' ')"
echo "test-clean-install: all checks passed"
