// Whether a model's data stays in the caches from one inference to the next,
// and so which cache state its kernels are tuned in. Inside a model a kernel
// reads the activation its producer has just written, and weights it last
// read one inference ago: those are still cached when everything one
// inference touches fits in the last-level cache, and gone from it when not.
// Measuring a kernel cold (weights flushed, as TVM's cache_flush_cpu_non_first_arg)
// when the model runs warm ranks schedules by DRAM streaming that are then
// slower in cache: a 2 MB MLP measured cold was tuned 1.4x faster kernel by
// kernel and ran 0.6x as fast end to end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "passes/fuse_ops.h"
#include "support/memory_bandwidth.h"
#include "tune/tuning_session.h"

namespace lathe {
class Graph;
}

namespace lathe::driver {

// What one inference touches, in bytes.
struct ModelFootprint {
  int64_t weight_bytes = 0;  // constants the kernels read
  // The most activations alive at once (graph inputs and kernel outputs,
  // each from its producer to its last reader, in the kernels' order): what
  // the memory plan's reuse brings the executor's storage close to.
  int64_t activation_bytes = 0;
  int64_t bytes() const { return weight_bytes + activation_bytes; }
};

ModelFootprint model_footprint(const Graph& graph, const std::vector<passes::FusedGroup>& groups);

struct CacheDecision {
  bool flush = true;   // measure each run after the weights and outputs left the cache
  std::string reason;  // one line for the user: the sizes and the cache they were set against
};

// Auto: warm when the footprint fits in half the outermost data cache (the
// rest for the code, the neighbours' share and the cache's imperfect
// replacement), cold when it does not or the OS names no cache.
CacheDecision decide_cache_flush(const ModelFootprint& footprint, tune::CacheFlush requested,
                                 const std::vector<CacheLevel>& caches = detect_data_caches());

}  // namespace lathe::driver
