// The reference executor: runs a graph node by node with the plain kernels of
// core/reference. It is the oracle that every later stage is checked against.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/op_registry.h"

namespace lathe::reference {

// The global op registry with every reference kernel attached.
OpRegistry& kernel_registry();

// Runs one node on the given inputs (nullptr for omitted ones) and returns its
// outputs, allocated with the given types. Throws naming the node on failure.
std::vector<Tensor> run_node(const OpDef& op, const Node& node,
                             const std::vector<const Tensor*>& inputs,
                             const std::vector<TensorType>& output_types);

class Executor {
 public:
  explicit Executor(const Graph& graph);
  // Inputs by graph-input name; returns the graph outputs in order. Throws
  // when an input is missing or does not match its declared type.
  std::vector<Tensor> run(const std::map<std::string, Tensor>& inputs) const;

 private:
  const Graph& graph_;
  std::vector<const OpDef*> ops_;
  std::vector<int> last_use_;  // per value, index of the last node reading it
};

// Kernel registration of each op family, in core/reference/*.cpp.
void register_elementwise_kernels(OpRegistry& registry);
void register_nn_kernels(OpRegistry& registry);
void register_shape_kernels(OpRegistry& registry);
void register_reduce_kernels(OpRegistry& registry);
void register_indexing_kernels(OpRegistry& registry);
void register_loss_kernels(OpRegistry& registry);
void register_layout_kernels(OpRegistry& registry);
void register_quantize_kernels(OpRegistry& registry);
void register_control_flow_kernels(OpRegistry& registry);
void register_matmul_integer_packed_kernel(OpRegistry& registry);  // matmul_integer_packed.cpp

}  // namespace lathe::reference
