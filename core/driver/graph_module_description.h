// The graph executor's description of a compiled graph (TVM's graph JSON):
// graph inputs and parameters as "null" nodes, one "tvm_op" node per fused
// group in dependency order, each entry's type and shape, and the memory plan.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/fuse_ops.h"
#include "runtime/graph_json.h"
#include "runtime/ndarray.h"
#include "tune/group_computation.h"
#include "tune/kernel_task.h"

namespace lathe::driver {

struct GraphModuleDescription {
  runtime::GraphModuleDesc desc;  // memory-planned
  std::map<std::string, runtime::NDArray> params;
};

// `computations[g]` is group g's computation, whose input and output values
// give its kernel's parameter order; `tasks` say which function runs each
// group; a group no task runs is one external call, whose node gives both,
// or one control-flow node, whose graphs `subgraphs_of_node` gives (by node
// index, as indices into the description's subgraphs, which the caller adds).
// Throws when the groups form a cycle or a value has no producer.
GraphModuleDescription describe_graph_module(
    const Graph& graph, const std::vector<passes::FusedGroup>& groups,
    const std::vector<tune::KernelTask>& tasks,
    const std::vector<tune::GroupComputation>& computations,
    const std::map<int, std::vector<uint32_t>>& subgraphs_of_node = {});

}  // namespace lathe::driver
