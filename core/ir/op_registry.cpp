#include "ir/op_registry.h"

#include "ir/ops/conv_integer_nchwc.h"
#include "ir/ops/depthwise_conv_integer_nchwc.h"
#include "ir/ops/matmul_integer_packed.h"
#include "ir/ops/stem_conv_integer.h"
#include "support/error.h"

namespace lathe {

std::string_view fusion_kind_name(FusionKind kind) {
  switch (kind) {
    case FusionKind::ElemWise:
      return "ElemWise";
    case FusionKind::Broadcast:
      return "Broadcast";
    case FusionKind::Injective:
      return "Injective";
    case FusionKind::CommReduce:
      return "CommReduce";
    case FusionKind::OutEWiseFusable:
      return "OutEWiseFusable";
    case FusionKind::Opaque:
      return "Opaque";
  }
  return "?";
}

InferContext::InferContext(const Node& node, std::vector<const TensorType*> input_types,
                           std::vector<const Tensor*> input_constants)
    : node_(node),
      types_(std::move(input_types)),
      constants_(std::move(input_constants)),
      outputs_(node.outputs.size()) {}

const TensorType& InferContext::input(size_t i) const {
  if (!has_input(i)) fail(str("required input ", i, " is missing"));
  return *types_[i];
}

const Tensor* InferContext::constant(size_t i) const {
  return i < constants_.size() ? constants_[i] : nullptr;
}

const Tensor& InferContext::require_constant(size_t i, std::string_view what) const {
  input(i);
  const Tensor* t = constant(i);
  if (!t)
    fail_unsupported(str("input ", i, " (", what,
                         ") must be a compile-time constant for static shapes; pass "
                         "--input-shapes or freeze it"));
  return *t;
}

void InferContext::check_dtype(size_t i, DTypeSet allowed) const {
  DType t = input(i).dtype;
  if (!dtype_in(t, allowed))
    fail_unsupported(str("input ", i, " has unsupported dtype ", dtype_name(t)));
}

void InferContext::set_output(size_t i, TensorType type) {
  if (i >= outputs_.size()) return;  // optional output not requested by the model
  for (int64_t d : type.shape)
    LATHE_CHECK(d >= 0, "inferred a negative dimension in output ", i, ": ",
                shape_to_string(type.shape));
  outputs_[i] = std::move(type);
}

const Tensor& KernelContext::input(size_t i) const {
  if (!has_input(i)) fail(str("required input ", i, " is missing"));
  return *inputs_[i];
}

Tensor& KernelContext::output(size_t i) const {
  LATHE_CHECK(i < outputs_.size() && outputs_[i], "output ", i, " was not allocated");
  return *outputs_[i];
}

OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    register_elementwise_ops(*r);
    register_nn_ops(*r);
    register_shape_ops(*r);
    register_reduce_ops(*r);
    register_indexing_ops(*r);
    register_loss_ops(*r);
    register_layout_ops(*r);
    register_quantize_ops(*r);
    register_conv_integer_nchwc_op(*r);
    register_depthwise_conv_integer_nchwc_op(*r);
    register_stem_conv_integer_op(*r);
    register_matmul_integer_packed_op(*r);
    register_control_flow_ops(*r);
    return r;
  }();
  return *registry;
}

OpDef& OpRegistry::define(const std::string& name, FusionKind kind, InferFn infer) {
  LATHE_CHECK(!name.empty(), "an op needs a name");
  LATHE_CHECK(infer, "op '", name, "' needs a shape inference function");
  auto [it, inserted] = ops_.try_emplace(name);
  if (!inserted) fail(str("op '", name, "' is already registered"));
  OpDef& def = it->second;
  def.name = name;
  def.kind = kind;
  def.infer = infer;
  return def;
}

const OpDef* OpRegistry::find(std::string_view name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : &it->second;
}

OpDef* OpRegistry::find_mutable(std::string_view name) {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : &it->second;
}

void OpRegistry::set_kernel(std::string_view name, KernelFn kernel) {
  OpDef* def = find_mutable(name);
  if (!def) fail(str("cannot attach a reference kernel to op '", name, "': no such op"));
  if (def->kernel) fail(str("op '", name, "' already has a reference kernel"));
  def->kernel = kernel;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> v;
  for (const auto& [name, def] : ops_) v.push_back(name);
  return v;
}

std::vector<TensorType> infer_node_types(const OpDef& op, const Graph& graph, const Node& node) {
  std::vector<const TensorType*> types;
  std::vector<const Tensor*> constants;
  for (ValueId in : node.inputs) {
    if (in == kNoValue) {
      types.push_back(nullptr);
      constants.push_back(nullptr);
    } else {
      const Value& v = graph.value(in);
      types.push_back(&v.type);
      constants.push_back(v.is_constant() ? &v.constant : nullptr);
    }
  }
  InferContext ctx(node, std::move(types), std::move(constants));
  op.infer(ctx);
  return std::move(ctx.outputs());
}

}  // namespace lathe
