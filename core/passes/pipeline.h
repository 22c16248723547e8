// The graph-level pipeline: one straight list of named passes, each a
// function Graph -> Graph, with the graph and the time recorded after each.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/fuse_ops.h"
#include "support/vector_unit.h"

namespace lathe::passes {

struct GraphSnapshot {
  std::string pass;
  Graph graph;
  std::vector<FusedGroup> groups;  // empty before fusion
  double milliseconds = 0;
};

struct PassOptions {
  bool alter_layout = true;  // the CPU layout pass (Conv -> Conv2dNCHWc)
  // The target is a GPU: ops whose one kernel would need a grid-wide step
  // are spelled as several (expand_dynamic_quantize), and ops whose outputs
  // share a reduction are one node per output (split_shared_outputs).
  bool gpu = false;
  bool record_snapshots = true;
  // The target's vector unit: the layout pass blocks channels by its vectors.
  VectorUnit vector_unit;
  // External codegens (passes/external_codegen.h) that may claim groups, in
  // order of preference; nullopt: every registered one (the plugins loaded).
  std::optional<std::vector<std::string>> external_codegens;
};

struct OptimizedGraph {
  Graph graph;
  std::vector<FusedGroup> groups;
  std::vector<GraphSnapshot> snapshots;
  VectorUnit vector_unit;  // the one the layout was chosen for (PassOptions)
};

OptimizedGraph optimize_graph(const Graph& graph, const PassOptions& options = {});

}  // namespace lathe::passes
