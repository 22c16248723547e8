// An analytical model of the bytes a lowered kernel moves at each level of a
// cache hierarchy, from its loop nest's buffer footprints (after the classic
// loop-level reuse models, as TVM's and Ansor's features estimate touched
// bytes per loop):
//
//  - The footprint of a buffer at a loop is the distinct bytes it touches in
//    one iteration of that loop (the loops inside relaxed over their
//    extents). For an affine index it is the smaller of the product of the
//    relaxed loops' extents (exact when the accesses do not overlap) and the
//    index's hull (exact for a sliding window); accesses that differ only by a
//    constant offset (unrolled taps) widen the hull. In cache lines of 64
//    bytes: a walk whose smallest stride is s elements touches min(s, line)
//    elements per element it uses (a column of a row-major matrix, a vector
//    gathering one channel of each NCHW16c pixel, a line each), within its span.
//  - The working set of a loop is the sum of its buffers' footprints.
//  - A cache of capacity C (fully associative, LRU) holding everything a loop
//    touches, or one iteration of it (the reuse between consecutive
//    iterations then hits), lets each distinct byte the loop touches through
//    once. Otherwise the loop's body is charged once per iteration: each
//    inner loop by the same rule, so a buffer is re-read per iteration of
//    the loop whose one-iteration working set first exceeds the cache.
//
// Not modelled: parallel loops spreading a working set over several private
// caches, hardware prefetching, conflict misses, and reuse of a line across
// iterations of a loop whose index the loop IR folds with / and % (a fused
// loop): consecutive iterations are taken to share what they touch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/roofline.h"
#include "tir/stmt.h"

namespace lathe::tir {

struct BufferFootprint {
  std::string buffer;
  double bytes = 0;       // of the cache lines touched
  double used_bytes = 0;  // of the elements accessed: fewer for a strided walk
};

// One loop of the kernel (pre-order), with what one iteration touches.
struct LoopFootprint {
  std::string loop_var;
  int64_t extent = 1;
  int depth = 0;                         // loops enclosing it
  std::vector<BufferFootprint> buffers;  // per iteration, in the order first accessed
  double working_set_bytes = 0;          // their sum
};

std::vector<LoopFootprint> loop_footprints(const PrimFunc& func);

struct TrafficOptions {
  // The kernel's data already in the caches, as when it runs again right
  // after itself (a benchmark's loop): a cache that holds the kernel's whole
  // footprint then lets nothing through. Cold, the default, is a first run
  // (the tuner measures after flushing the caches).
  bool warm = false;
};

// The bytes read and written through a cache of each capacity (bytes),
// as the model above estimates them: what the next level out serves. With
// the register file's capacity it is what L1 serves.
std::vector<LevelTraffic> memory_traffic(const PrimFunc& func,
                                         const std::vector<int64_t>& capacities,
                                         const TrafficOptions& options = {});

}  // namespace lathe::tir
