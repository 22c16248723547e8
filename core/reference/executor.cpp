#include "reference/executor.h"

#include "support/error.h"

namespace lathe::reference {

void register_conv_integer_nchwc_kernel(OpRegistry& registry);  // conv_integer_nchwc.cpp
void register_depthwise_conv_integer_nchwc_kernel(
    OpRegistry& registry);                                     // depthwise_conv_integer_nchwc.cpp
void register_stem_conv_integer_kernel(OpRegistry& registry);  // stem_conv_integer.cpp

OpRegistry& kernel_registry() {
  static OpRegistry* registry = [] {
    OpRegistry* r = &OpRegistry::global();
    register_elementwise_kernels(*r);
    register_nn_kernels(*r);
    register_shape_kernels(*r);
    register_reduce_kernels(*r);
    register_indexing_kernels(*r);
    register_loss_kernels(*r);
    register_layout_kernels(*r);
    register_quantize_kernels(*r);
    register_conv_integer_nchwc_kernel(*r);
    register_depthwise_conv_integer_nchwc_kernel(*r);
    register_stem_conv_integer_kernel(*r);
    register_control_flow_kernels(*r);
    register_matmul_integer_packed_kernel(*r);
    return r;
  }();
  return *registry;
}

std::vector<Tensor> run_node(const OpDef& op, const Node& node,
                             const std::vector<const Tensor*>& inputs,
                             const std::vector<TensorType>& output_types) {
  if (!op.kernel) fail_unsupported(str("node ", describe_node(node), ": no reference kernel"));
  // Omitted optional outputs (kNoValue) get no tensor; kernels skip them.
  std::vector<Tensor> outputs(output_types.size());
  std::vector<Tensor*> output_ptrs;
  for (size_t k = 0; k < output_types.size(); ++k) {
    bool omitted = k < node.outputs.size() && node.outputs[k] == kNoValue;
    if (!omitted) outputs[k] = Tensor(output_types[k]);
    output_ptrs.push_back(omitted ? nullptr : &outputs[k]);
  }
  KernelContext ctx(node, inputs, std::move(output_ptrs));
  try {
    op.kernel(ctx);
  } catch (const UnsupportedError& e) {
    throw UnsupportedError(str("node ", describe_node(node), ": ", e.what()));
  } catch (const Error& e) {
    throw Error(str("node ", describe_node(node), ": ", e.what()));
  }
  return outputs;
}

Executor::Executor(const Graph& graph) : graph_(graph), last_use_(graph.values.size(), -1) {
  OpRegistry& registry = kernel_registry();
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    const OpDef* op = registry.find(node.op);
    if (!op || !op->kernel)
      fail_unsupported(str("node ", describe_node(node), ": op has no reference kernel"));
    ops_.push_back(op);
    for (ValueId in : node.inputs)
      if (in != kNoValue) last_use_[static_cast<size_t>(in)] = static_cast<int>(i);
  }
  for (ValueId out : graph.outputs) last_use_[static_cast<size_t>(out)] = INT32_MAX;
}

std::vector<Tensor> Executor::run(const std::map<std::string, Tensor>& inputs) const {
  std::vector<Tensor> env(graph_.values.size());
  for (size_t i = 0; i < graph_.values.size(); ++i)
    if (graph_.values[i].is_constant()) env[i] = graph_.values[i].constant;
  for (ValueId id : graph_.inputs) {
    const Value& v = graph_.value(id);
    auto it = inputs.find(v.name);
    if (it == inputs.end()) fail(str("missing input '", v.name, "' (", v.type.to_string(), ")"));
    if (it->second.type() != v.type)
      fail(str("input '", v.name, "' expects ", v.type.to_string(), ", got ",
               it->second.type().to_string()));
    env[static_cast<size_t>(id)] = it->second;
  }
  for (const auto& [name, tensor] : inputs) {
    ValueId id = graph_.find_value(name);
    bool is_input = false;
    for (ValueId in : graph_.inputs) is_input |= in == id;
    if (!is_input) fail(str("'", name, "' is not an input of the model"));
  }

  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const Node& node = graph_.nodes[i];
    std::vector<const Tensor*> args;
    for (ValueId in : node.inputs)
      args.push_back(in == kNoValue ? nullptr : &env[static_cast<size_t>(in)]);
    std::vector<TensorType> types;
    for (ValueId out : node.outputs)
      types.push_back(out == kNoValue ? TensorType{} : graph_.type(out));
    std::vector<Tensor> results = run_node(*ops_[i], node, args, types);
    for (size_t k = 0; k < node.outputs.size(); ++k)
      if (node.outputs[k] != kNoValue)
        env[static_cast<size_t>(node.outputs[k])] = std::move(results[k]);
    // Free what no later node reads, so large models run in little memory.
    for (ValueId in : node.inputs)
      if (in != kNoValue && last_use_[static_cast<size_t>(in)] == static_cast<int>(i) &&
          !graph_.value(in).is_constant())
        env[static_cast<size_t>(in)] = Tensor();
  }
  std::vector<Tensor> outputs;
  for (ValueId out : graph_.outputs) outputs.push_back(env[static_cast<size_t>(out)]);
  return outputs;
}

}  // namespace lathe::reference
