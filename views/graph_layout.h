// Lays out a graph IR with Graphviz's `dot` into plain geometry the graph view
// draws. A pure function without Qt, so it runs in a pool thread; Graphviz
// itself runs in the layout worker (views/layout_worker).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "driver/optimized_graph.h"
#include "ir/graph.h"
#include "support/error.h"

namespace lathe::views {

// How the view colours a node: the op's fusion pattern, with layout
// transforms and the graph's own inputs and outputs set apart.
enum class OpCategory {
  Anchor,
  ElementWise,
  Injective,
  Reduction,
  Opaque,
  Layout,
  GraphInput,
  GraphOutput
};

OpCategory op_category(const std::string& op);
// "conv/dense anchor", "elementwise" ... for legends and tooltips.
std::string op_category_name(OpCategory category);
// The fill colour both the DOT export and the view use, "#rrggbb".
std::string op_category_color(OpCategory category);

// Scene coordinates in points (1/72 inch), y growing downwards, origin at the
// top left of the whole drawing.
struct LayoutPoint {
  double x = 0;
  double y = 0;
};

struct LayoutRect {
  double x = 0;  // left
  double y = 0;  // top
  double width = 0;
  double height = 0;
  bool contains(const LayoutRect& other) const;
};

struct LayoutNode {
  std::string id;    // the DOT node id: "n3", "in0", "out0"
  std::string name;  // the graph node's name, or the graph input/output value's name
  std::string op;    // empty for graph inputs and outputs
  OpCategory category = OpCategory::Opaque;
  // First line the op (or "input"/"output"), then the main attributes
  // ("k 3×3 s 2 p 1"), then the constant inputs' shapes ("W [64,3,7,7]").
  std::vector<std::string> label;
  LayoutRect box;
  int graph_node = -1;  // index into graph.nodes; -1 for graph inputs/outputs
  int group = -1;       // index into the groups laid out as clusters, or -1
  // Inside a control-flow node's subgraph: its path ("If_25/then"); such a
  // node, input or output has graph_node -1 and no group.
  std::string subgraph;
};

struct LayoutEdge {
  int from = -1;  // indices into GraphLayout::nodes
  int to = -1;
  // A cubic B-spline as Graphviz gives it: start, then three points per segment.
  std::vector<LayoutPoint> points;
  bool has_arrow = false;
  LayoutPoint arrow_tip;  // where the arrow head points, when has_arrow
  std::string label;      // the tensor's shape, "[1,64,56,56]"
  LayoutPoint label_pos;  // centre of the label
  int value = -1;         // the ValueId carried
};

struct LayoutCluster {
  std::string name;  // the fused group's name, or the subgraph's ("If_25/then")
  int group = -1;    // index into the groups passed in; -1 for a subgraph
  LayoutRect box;
  LayoutPoint label_pos;  // centre of the label
};

// How much work `dot` may spend. Detailed: spline edges, unbounded searches.
// Bounded, for graphs whose edges span many ranks (dense concatenation):
// straight edges and capped searches, so that the layout ends in about a
// second instead of minutes.
enum class LayoutEffort { Detailed, Bounded };

struct GraphLayout {
  std::vector<LayoutNode> nodes;
  std::vector<LayoutEdge> edges;
  std::vector<LayoutCluster> clusters;
  double width = 0;
  double height = 0;
  std::string dot;  // the DOT text that was laid out
  LayoutEffort effort = LayoutEffort::Detailed;
  double milliseconds = 0;

  // Index into nodes of the node named `name` (graph nodes before inputs/outputs), or -1.
  int find_node(const std::string& name) const;
};

// The graph as DOT: constants fold into their readers' labels; graph inputs
// and outputs are nodes; each group (when given) becomes a cluster. Each
// subgraph of a control-flow node (If, Loop) is drawn whole in a cluster of
// its own beside it, with dashed edges from the node to the subgraph's
// inputs; subgraphs within subgraphs too. Node names appear as tooltips, so
// the DOT names every node.
std::string to_dot(const Graph& graph, const std::vector<driver::FusedGroup>& groups = {});

// Thrown by layout_graph when its cancel flag was set.
struct LayoutCancelled : Error {
  LayoutCancelled() : Error("graph layout cancelled") {}
};

// Lays out to_dot(graph, groups) with `dot`, in a lathe-layout-worker process
// of its own (dot cannot be interrupted, and keeps global state): calls on
// several threads run in parallel, and setting `cancel` kills the worker and
// throws LayoutCancelled. Throws lathe::Error when Graphviz fails.
GraphLayout layout_graph(const Graph& graph, const std::vector<driver::FusedGroup>& groups = {},
                         const std::atomic<bool>* cancel = nullptr);

}  // namespace lathe::views
