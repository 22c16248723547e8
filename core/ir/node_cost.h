// What one node of a graph costs to run: its multiply-accumulates and its
// floating-point operations, counted the way TVM and the ONNX profilers do.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace lathe {

struct NodeCost {
  int64_t macs = 0;   // 0 for ops without a multiply-accumulate kernel
  int64_t flops = 0;  // 2 per MAC; otherwise one per output element
};

NodeCost node_cost(const Graph& graph, const Node& node);

}  // namespace lathe
