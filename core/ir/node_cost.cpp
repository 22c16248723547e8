#include "ir/node_cost.h"

#include "ir/op_registry.h"

namespace lathe {

NodeCost node_cost(const Graph& graph, const Node& node) {
  std::vector<TensorType> in, out;
  for (ValueId v : node.inputs) in.push_back(v == kNoValue ? TensorType{} : graph.type(v));
  for (ValueId v : node.outputs) out.push_back(v == kNoValue ? TensorType{} : graph.type(v));
  NodeCost cost;
  const OpDef* op = OpRegistry::global().find(node.op);
  if (op && op->macs) cost.macs = op->macs(node, in, out);
  if (cost.macs > 0)
    cost.flops = 2 * cost.macs;
  else if (!out.empty())
    // One operation per output element for everything that is not a
    // multiply-accumulate kernel (elementwise ops, pooling, layout changes).
    cost.flops = out[0].numel();
  return cost;
}

}  // namespace lathe
