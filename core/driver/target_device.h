// Whether the kernels of a target can run on this machine, and what is known
// of the device's peaks without running anything: what the studio asks before
// it offers timing, tuning, benchmarks and the roofline.
#pragma once

#include <string>

#include "driver/target.h"

namespace lathe::driver {

// Why kernels compiled for `target` cannot be run and timed here, in words,
// or "" when they can. A CPU target runs when the JIT can run its code
// (Target::is_host); a cuda target needs the NVIDIA driver (the reason
// runtime::CudaDriver::open gives when it cannot open it) and a device; its
// kernels are then measured on GPU 0 (KernelWorkbench::measure).
std::string why_kernels_cannot_run(const Target& target);

// Why the roofline has no peak for `target`, or "" when it has one: the CPU's
// is measured on this machine; a GPU's FLOPS and bandwidth depend on the
// board (sm_90 is an H100 or an H200, with different bandwidths), so -arch
// alone gives no honest number.
std::string why_peak_unknown(const Target& target);

}  // namespace lathe::driver
