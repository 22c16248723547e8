#!/bin/bash
# The GPU device check, run on the device machine in one call of the device
# tool (docs/GPU-RESULTS.md says how): unpacks the bundle that
# tools/gpu/prepare_device_check.py made here, runs every model's cuda
# package on the GPU with lathe_device_run (which needs only the libraries
# the bundle carries), compares with the CPU's output, times each model
# beside PyTorch eager on the same GPU, and writes the results under $OUT.
#
#   bash tools/gpu/device_check.sh [.gpu/bundle.tar.xz] [--skip-torch] [NAME ...]
set -u
bundle=${1:-.gpu/bundle.tar.xz}
shift || true
out=${OUT:-/tmp/lathe-gpu-out}
mkdir -p "$out"
if [ ! -f "$bundle" ]; then
  echo "device_check: no $bundle; run tools/gpu/prepare_device_check.py here first and carry .gpu" >&2
  exit 2
fi
work=$(mktemp -d /tmp/lathe-gpu-XXXXXX)
tar xJf "$bundle" -C "$work" || exit 2
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$work/gpu.txt" 2>&1
# The runner's libraries come with it; python3 (PyTorch's) does not see them.
for tool in "$work"/bundle/bin/*; do
  LD_LIBRARY_PATH="$work/bundle/lib" ldd "$tool" | grep "not found"
done
PYTHONUNBUFFERED=1 python3 "$(dirname "$0")/device_check.py" --bundle "$work/bundle" \
  --out "$out" --gpu-info "$work/gpu.txt" "$@" 2>&1 | tee "$out/log.txt"
status=${PIPESTATUS[0]}
rm -rf "$work"
exit "$status"
