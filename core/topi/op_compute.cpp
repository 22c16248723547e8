#include "topi/op_compute.h"

#include "support/error.h"
#include "topi/dynamic_quantize_x86.h"
#include "topi/int8_stem.h"
#include "topi/schedule_cuda_templates.h"

namespace lathe::topi {

te::DataType te_dtype(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return te::DataType::Float(32);
    case DType::Float64:
      return te::DataType::Float(64);
    case DType::Int8:
      return te::DataType::Int(8);
    case DType::Int16:
      return te::DataType::Int(16);
    case DType::Int32:
      return te::DataType::Int(32);
    case DType::Int64:
      return te::DataType::Int(64);
    case DType::UInt8:
      return te::DataType::UInt(8);
    case DType::UInt16:
      return te::DataType::UInt(16);
    case DType::UInt32:
      return te::DataType::UInt(32);
    case DType::UInt64:
      return te::DataType::UInt(64);
    case DType::Bool:
      return te::DataType::Bool();
    case DType::Float16:
      return te::DataType::Float(16);
    case DType::BFloat16:
      return te::DataType::BFloat(16);
  }
  throw Error("unknown dtype");
}

ComputeContext::ComputeContext(const Node& node, std::vector<te::Tensor> inputs,
                               std::vector<const lathe::Tensor*> constants,
                               std::vector<TensorType> input_types,
                               std::vector<TensorType> output_types, std::string base_name)
    : node_(node),
      inputs_(std::move(inputs)),
      constants_(std::move(constants)),
      input_types_(std::move(input_types)),
      output_types_(std::move(output_types)),
      base_name_(std::move(base_name)) {
  constants_.resize(inputs_.size(), nullptr);
}

const te::Tensor& ComputeContext::input(size_t i) const {
  if (!has_input(i))
    throw Error(
        describe_node(node_) + ": input " + std::to_string(i) +
        (i < inputs_.size() && constants_[i] ? " is only available as a constant" : " is missing"));
  return inputs_[i];
}

const lathe::Tensor* ComputeContext::constant(size_t i) const {
  return i < constants_.size() ? constants_[i] : nullptr;
}

const lathe::Tensor& ComputeContext::require_constant(size_t i, std::string_view what) const {
  if (const lathe::Tensor* c = constant(i)) return *c;
  throw UnsupportedError(describe_node(node_) + ": " + std::string(what) +
                         " must be a compile-time constant");
}

const TensorType& ComputeContext::input_type(size_t i) const {
  if (i >= input_types_.size())
    throw Error(describe_node(node_) + ": no input " + std::to_string(i));
  return input_types_[i];
}

const TensorType& ComputeContext::output_type(size_t i) const {
  if (i >= output_types_.size())
    throw Error(describe_node(node_) + ": no output " + std::to_string(i));
  return output_types_[i];
}

std::string ComputeContext::name(std::string_view suffix) const {
  if (suffix.empty()) return base_name_;
  return base_name_ + "_" + std::string(suffix);
}

OpStrategyRegistry& OpStrategyRegistry::global() {
  static OpStrategyRegistry registry = [] {
    OpStrategyRegistry r;
    register_elementwise_computes(r);
    register_shape_computes(r);
    register_reduce_computes(r);
    register_indexing_computes(r);
    register_nn_computes(r);
    register_layout_computes(r);
    register_extra_computes(r);
    register_quantize_computes(r);
    register_int8_computes(r);
    register_int8_depthwise_computes(r);
    register_int8_stem_computes(r);
    register_dynamic_quantize_template(r);
    register_cuda_templates(r);  // after the computes: GPU templates by op class
    return r;
  }();
  return registry;
}

void OpStrategyRegistry::define_compute(const std::string& op, OpComputeFn fn) {
  LATHE_CHECK(fn, "the compute of op '", op, "' is null");
  OpStrategy& strategy = ops_[op];
  if (strategy.compute) fail(str("op '", op, "' already has a compute"));
  strategy.compute = fn;
}

void OpStrategyRegistry::define_template(const std::string& op, OpTemplateFn fn) {
  LATHE_CHECK(fn, "the tuning template of op '", op, "' is null");
  OpStrategy& strategy = ops_[op];
  if (strategy.tuning_template) fail(str("op '", op, "' already has a tuning template"));
  strategy.tuning_template = fn;
}

void OpStrategyRegistry::define_template(const std::string& op, const std::string& target_kind,
                                         OpTemplateFn fn) {
  if (target_kind == "llvm") {
    define_template(op, fn);
    return;
  }
  LATHE_CHECK(fn, "the ", target_kind, " tuning template of op '", op, "' is null");
  OpStrategy& strategy = ops_[op];
  if (!strategy.templates.emplace(target_kind, fn).second)
    fail(str("op '", op, "' already has a tuning template for target kind '", target_kind, "'"));
}

OpTemplateFn OpStrategy::template_for(std::string_view target_kind) const {
  if (target_kind == "llvm") return tuning_template;
  auto it = templates.find(target_kind);
  return it == templates.end() ? nullptr : it->second;
}

const OpStrategy* OpStrategyRegistry::find(std::string_view op) const {
  auto it = ops_.find(op);
  return it == ops_.end() || !it->second.compute ? nullptr : &it->second;
}

std::vector<std::string> OpStrategyRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, strategy] : ops_)
    if (strategy.compute) out.push_back(name);
  return out;
}

}  // namespace lathe::topi
