// The roofline of one kernel over the machine's memory hierarchy: given the
// kernel's FLOPs and the bytes it moves at each level (tir/analysis/
// memory_traffic), the measured FMA peak and bandwidths (memory_bandwidth),
// the arithmetic intensity and roof at each level, and which one bounds it.
#pragma once

#include <string>
#include <vector>

#include "support/memory_bandwidth.h"

namespace lathe {

// Bytes served by one level of the memory hierarchy, split by direction:
// reads and writes have different costs (a store is a read for ownership
// and a write-back).
struct LevelTraffic {
  double read_bytes = 0;
  double write_bytes = 0;
  double bytes() const { return read_bytes + write_bytes; }
};

struct RooflineLevel {
  std::string name;        // the bandwidth table's: "L1", "L2", "L3", "DRAM"
  double bytes = 0;        // read + written at this level
  double intensity = 0;    // FLOPs per byte at this level (+inf for no bytes)
  double gbps = 0;         // the effective bandwidth for this mix of reads and writes
  double seconds = 0;      // bytes at that bandwidth
  double roof_gflops = 0;  // min(peak, intensity x bandwidth)
};

struct Roofline {
  double flops = 0;
  double peak_gflops = 0;
  std::vector<RooflineLevel> levels;  // in the bandwidth table's order
  double roof_gflops = 0;             // the lowest roof: min over levels and the peak
  std::string bound;                  // "compute" or the level whose roof is lowest
  // What the model expects the kernel to take: the longest of FLOPs at the
  // peak and each level's bytes at its bandwidth (the levels overlap).
  double estimated_seconds = 0;
};

// `traffic[i]` is what the kernel moves at `bandwidth.levels[i]`; levels
// beyond traffic.size() are left out. The roof of a level is
// intensity x bandwidth, with the bandwidth of that level's mix of reads and
// writes: reads cost 1 / read_gbps a byte, and a written byte what the
// read+write kernel spent beyond its reads (2 / read_write_gbps - 1 / read_gbps,
// since it reads and writes the same number of bytes).
Roofline classify_roofline(double flops, const std::vector<LevelTraffic>& traffic,
                           double peak_gflops, const MemoryBandwidth& bandwidth);

}  // namespace lathe
