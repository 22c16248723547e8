// The operator class of a fused group, as issue-level reports count them
// ("depthwise conv", "grouped conv", "1x1 conv", "matmul", "GEMV", "layout
// transform", "transpose", "concat", "pool", "reduction / normalization",
// "elementwise" ...): its anchor op, told apart by the attributes and shapes
// that change how it must be scheduled. For bench_roofline --classes.
#pragma once

#include <string>

#include "ir/graph.h"
#include "passes/fuse_ops.h"

namespace lathe::bench {

std::string operator_class(const Graph& graph, const passes::FusedGroup& group);

}  // namespace lathe::bench
