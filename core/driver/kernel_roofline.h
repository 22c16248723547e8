// Where each kernel of a compiled model stands on the machine's roofline, for
// `lathe run --profile`: its FLOPs and the bytes it moves at each cache level
// (tir/analysis), its measured time, and the roof over it (support/roofline)
// from the machine's FMA peak and bandwidths measured in the same run.
#pragma once

#include <string>
#include <vector>

#include "driver/executor.h"
#include "driver/graph_compiler.h"
#include "support/memory_bandwidth.h"
#include "support/roofline.h"
#include "tir/stmt.h"

namespace lathe::driver {

struct MachineRoof {
  double peak_gflops = 0;
  MemoryBandwidth bandwidth;
  VectorUnit vector_unit;  // the register file: what misses it, L1 serves
};

// The FMA peak (driver/machine_peak.h) and the bandwidth of every level,
// measured on the threads generated kernels run on (about a second).
MachineRoof measure_machine_roof(const codegen::Target& target);

struct KernelRoofline {
  KernelProfile profile;
  double flops = 0;
  Roofline roof;
  double achieved_gflops = 0;
  double dram_gbps = 0;        // DRAM bytes over the measured time
  double percent_of_roof = 0;  // the model's time at the roof / the measured time
};

// The roof over one lowered kernel: its FLOPs and the bytes it moves at each
// level of `machine` from a cold start, classified (support/roofline.h).
Roofline kernel_roof(const tir::PrimFunc& func, const MachineRoof& machine);

// One row per profiled kernel run. The traffic is the model's for a cold
// start: a kernel's first touch of its data comes from DRAM, as when a
// model's weights outgrow the caches.
std::vector<KernelRoofline> kernel_rooflines(const CompiledGraph& compiled,
                                             const std::vector<KernelProfile>& profile,
                                             const MachineRoof& machine);

// The profile table with GFLOPS, intensity (at the bounding level, or DRAM
// for compute-bound kernels), roof, % of roof and bound columns.
std::string format_roofline_profile(const std::vector<KernelRoofline>& rows,
                                    const MachineRoof& machine);

}  // namespace lathe::driver
