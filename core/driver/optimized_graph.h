// The graph passes as the driver's clients run and show them: the options,
// the optimized graph with a snapshot after every pass, and its fused groups.
#pragma once

#include "passes/pipeline.h"

namespace lathe::driver {

// Aliases rather than copies: the pipeline's results are plain data that the
// studio shows as they are (what the user reads is what the compiler used).
using passes::FusedGroup;
using passes::GraphSnapshot;
using passes::optimize_graph;
using passes::OptimizedGraph;
using passes::PassOptions;

}  // namespace lathe::driver
