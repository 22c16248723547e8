// The theoretical occupancy of a cuda kernel: how many of its blocks, and so
// warps, one streaming multiprocessor holds at once, given its threads per
// block and what ptxas says it uses (registers, static shared memory,
// barriers). Computed as NVIDIA's occupancy calculator does
// (cuda_occupancy.h: registers per warp rounded to 256 and shared memory to
// its allocation unit with the per-block reservation, each of the SM's four
// sub-partitions holding its own warps' registers) with the default shared
// memory carveout, from the limits the CUDA C++ Programming Guide lists per
// compute capability. Few resident warps leave a GPU nothing to switch to
// while loads are in flight; the limit says which resource to give back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "driver/ptx_resources.h"

namespace lathe::driver {

struct GpuOccupancy {
  int64_t blocks_per_sm = 0;
  int64_t warps_per_sm = 0;  // resident: blocks_per_sm x the block's warps
  int64_t max_warps_per_sm = 0;
  // What bounds blocks_per_sm: "warps", "blocks", "registers", "shared
  // memory" or "barriers" (the first of them when several do).
  std::string limited_by;
  double fraction() const {
    return max_warps_per_sm ? double(warps_per_sm) / double(max_warps_per_sm) : 0.0;
  }
};

// Occupancy on a GPU of compute capability `arch` ("sm_90", "sm_90a"): nullopt
// for an arch the table does not have (before sm_70, or not a cuda arch).
std::optional<GpuOccupancy> theoretical_occupancy(const std::string& arch,
                                                  int64_t threads_per_block,
                                                  const KernelResources& kernel);

// "occupancy 50% on sm_90 (32 of 64 warps: 4 blocks of 8 warps, limited by registers)".
std::string format_occupancy(const GpuOccupancy& occupancy, const std::string& arch);

}  // namespace lathe::driver
