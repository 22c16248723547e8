#include "support/roofline.h"

#include <algorithm>
#include <cmath>

namespace lathe {

Roofline classify_roofline(double flops, const std::vector<LevelTraffic>& traffic,
                           double peak_gflops, const MemoryBandwidth& bandwidth) {
  Roofline r;
  r.flops = flops;
  r.peak_gflops = peak_gflops;
  r.roof_gflops = peak_gflops;
  r.bound = "compute";
  const double compute_seconds = flops / (peak_gflops * 1e9);
  r.estimated_seconds = compute_seconds;
  size_t n = std::min(traffic.size(), bandwidth.levels.size());
  for (size_t i = 0; i < n; ++i) {
    const BandwidthLevel& bw = bandwidth.levels[i];
    RooflineLevel level;
    level.name = bw.name;
    level.bytes = traffic[i].bytes();
    double read_cost = 1.0 / (bw.read_gbps * 1e9);
    // Noise can make the read+write kernel look faster per byte than reads
    // alone; a write then costs what a read does.
    double write_cost = std::max(2.0 / (bw.read_write_gbps * 1e9) - read_cost, read_cost);
    level.seconds = traffic[i].read_bytes * read_cost + traffic[i].write_bytes * write_cost;
    level.gbps = level.seconds > 0 ? level.bytes / level.seconds / 1e9 : bw.read_gbps;
    level.intensity = level.bytes > 0 ? flops / level.bytes : INFINITY;
    level.roof_gflops = std::min(peak_gflops, level.intensity * level.gbps);
    r.roof_gflops = std::min(r.roof_gflops, level.roof_gflops);
    // The bound is the level that takes longest; for a kernel with FLOPs that
    // is the lowest roof, and it still names one for a kernel without (a copy).
    if (level.seconds > r.estimated_seconds) {
      r.estimated_seconds = level.seconds;
      r.bound = level.name;
    }
    r.levels.push_back(level);
  }
  return r;
}

}  // namespace lathe
