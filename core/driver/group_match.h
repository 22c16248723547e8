// Which executor nodes of two builds of one model compute the same part of
// it, for "should I offload this conv?": a build with an external codegen
// (passes/partition_external) replaces some of Lathe's fused groups by calls,
// and its own groups and kernels are numbered differently, so neither group
// nor kernel names line up across builds. What does line up are the graph's
// nodes: each executor node (a fused group, or an external call through the
// names it recorded of the nodes it replaced) computes a set of them, and
// two nodes of either build that share one are matched; a match is a
// connected set, usually one of Lathe's groups and the call that claimed its
// chain. Nodes that a pass created in one build only (a layout transform)
// match what they are fused with, or nothing.
#pragma once

#include <string>
#include <vector>

#include "driver/graph_compiler.h"

namespace lathe::driver {

struct MatchedGroups {
  // Executor node names (runtime::GraphNode::name, KernelProfile::node_name)
  // of each build, in node order; one side may be empty.
  std::vector<std::string> first, second;
};

// The graph nodes each executor node of `compiled` computes, by name, in
// executor (group) order: {group name, node names}.
std::vector<std::pair<std::string, std::vector<std::string>>> group_nodes(
    const CompiledGraph& compiled);

// The matches of every executor node of both builds, in the order of their
// first node in `first` (then those only in `second`).
std::vector<MatchedGroups> match_groups(const CompiledGraph& first, const CompiledGraph& second);

}  // namespace lathe::driver
