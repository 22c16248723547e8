// Operator fusion after TVM's FuseOps: partitions the nodes of a graph into
// groups that each become one kernel, from the ops' pattern kinds and the
// graph's post-dominator tree.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/op_registry.h"

namespace lathe::passes {

struct FusedGroup {
  int id = 0;
  // TVM style and unique: "fused_" + the snake_case op names joined by "_"
  // ("fused_conv2dnchwc_add_relu"); repeats get "_1", "_2" ...
  std::string name;
  std::vector<int> nodes;  // indices into graph.nodes, topological order
  // The master node: the OutEWiseFusable or CommReduce node if any, else the last node.
  int anchor = -1;
  FusionKind kind = FusionKind::Opaque;  // the anchor's pattern
  // Values read but produced outside the group (graph inputs, constants,
  // other groups' outputs): first-use order, no duplicates, no kNoValue.
  std::vector<ValueId> inputs;
  // Values produced inside and read outside, or graph outputs.
  std::vector<ValueId> outputs;
};

// Every node lands in exactly one group; groups come in topological order
// (by their last node) with id = position. The rules, as TVM's:
// - an OutEWiseFusable node (conv, dense, pooling) takes the ElemWise and
//   Broadcast ops after it when every path from it meets at one of them
//   (its post-dominator) through such ops only;
// - ElemWise and Broadcast ops join a later Injective, CommReduce or fused
//   group they are post-dominated by, through injective paths;
// - injective chains fuse (after the first two rules are done), and an
//   injective op also joins the CommReduce op that post-dominates it;
// - Opaque ops never fuse, and a node producing a graph output ends its group.
std::vector<FusedGroup> fuse_ops(const Graph& graph);

// "Conv2dNCHWc" -> "conv2dnchwc", "LayoutTransform" -> "layout_transform":
// an underscore before each capitalised word, the rest lowercase, any other
// character an underscore ("com.microsoft.QLinearAdd" -> "com_microsoft_qlinear_add").
std::string snake_case_op(const std::string& op);

}  // namespace lathe::passes
