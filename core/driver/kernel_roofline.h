// Where each kernel of a compiled model stands on the machine's roofline, for
// `lathe run --profile` and the studio's roofline chart: its FLOPs and the
// bytes it moves at each cache level (tir/analysis), its measured time, the
// roof over it (support/roofline) from the machine's FMA peak and bandwidths
// (driver/machine_roof), and for a memory-bound kernel what the graph says
// would lift it (driver/what_if).
#pragma once

#include <string>
#include <vector>

#include "driver/executor.h"
#include "driver/machine_roof.h"
#include "driver/target.h"
#include "driver/what_if.h"
#include "support/roofline.h"
#include "tir/stmt.h"

namespace lathe::driver {

struct CompiledGraph;

struct KernelRoofline {
  KernelProfile profile;  // node_name is the fused group's name
  int group = -1;         // its index in the optimized graph's groups
  int task = -1;          // the kernel task running it (KernelTask::id)
  std::string workload;   // that task's workload id (task_workload_id)
  double flops = 0;
  Roofline roof;
  double achieved_gflops = 0;
  double dram_gbps = 0;           // DRAM bytes over the measured time
  double percent_of_roof = 0;     // the model's time at the roof / the measured time
  std::vector<WhatIfHint> hints;  // memory-bound kernels only, most bytes first

  // The intensity a reader compares with the roof: at the bounding level, or
  // at DRAM when the kernel is compute-bound (+inf without bytes, 0 without FLOPs).
  double intensity() const;
};

// The roof over one lowered kernel: its FLOPs and the bytes it moves at each
// level of `machine` from a cold start, classified (support/roofline.h). L1's
// traffic is what misses `registers`, the register file of the kernel's target.
Roofline kernel_roof(const tir::PrimFunc& func, const VectorUnit& registers,
                     const MachineRoof& machine);

// One row per profiled kernel run. The traffic is the model's for a cold
// start: a kernel's first touch of its data comes from DRAM, as when a
// model's weights outgrow the caches. L1's traffic is what misses the
// register file of the vector unit the graph was compiled for.
std::vector<KernelRoofline> kernel_rooflines(const CompiledGraph& compiled,
                                             const std::vector<KernelProfile>& profile,
                                             const MachineRoof& machine);

// The profile table with GFLOPS, intensity (KernelRoofline::intensity), roof,
// % of roof and bound columns, then a line per what-if hint of a memory-bound kernel.
std::string format_roofline_profile(const std::vector<KernelRoofline>& rows,
                                    const MachineRoof& machine);

}  // namespace lathe::driver
