// What-if hints for a memory-bound kernel, from the fused graph alone: where
// a tensor the kernel writes is read again by the next group, or where the
// kernel reads what a layout transform wrote for it only, one kernel instead
// of two would not write and re-read that tensor. A hint says how many bytes
// that is and what they cost at the bandwidth of the level the tensor fits
// in. It claims nothing the graph does not show: whether the two groups can
// be scheduled as one is the schedule's question.
#pragma once

#include <string>
#include <vector>

#include "support/memory_bandwidth.h"
#include "support/roofline.h"

namespace lathe::passes {
struct OptimizedGraph;  // driver/optimized_graph.h; declared only, for light includers
}

namespace lathe::driver {

struct WhatIfHint {
  std::string text;          // one line, as `lathe run --profile` prints it
  std::string other_group;   // the group to fuse with, or the transform to sink
  std::string level;         // where the tensor lives between the two: "L2", "L3", "DRAM"
  double bytes_saved = 0;    // written and read again
  double seconds_saved = 0;  // those bytes at that level's read+write bandwidth
};

// The hints for group `group` of `optimized`; none unless `roof` bounds it by
// memory (a level, not "compute").
std::vector<WhatIfHint> what_if_hints(const passes::OptimizedGraph& optimized, int group,
                                      const Roofline& roof, const MemoryBandwidth& bandwidth);

}  // namespace lathe::driver
