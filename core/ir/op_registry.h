// The op registry: for every op Lathe knows, its ONNX name, its shape and type
// inference, its TVM fusion pattern kind, its multiply-accumulate count and its
// reference kernel. Inference lives in core/ir/ops; kernels are attached by
// core/reference (see reference::kernel_registry()).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"

namespace lathe {

// TVM's operator pattern kinds, which drive operator fusion.
enum class FusionKind { ElemWise, Broadcast, Injective, CommReduce, OutEWiseFusable, Opaque };
std::string_view fusion_kind_name(FusionKind kind);

// What an inference function sees of a node: its attributes, the types of its
// inputs, and the values of those inputs that are constants.
class InferContext {
 public:
  InferContext(const Node& node, std::vector<const TensorType*> input_types,
               std::vector<const Tensor*> input_constants);

  const Node& node() const { return node_; }
  const Attributes& attrs() const { return node_.attrs; }
  size_t num_inputs() const { return types_.size(); }
  bool has_input(size_t i) const { return i < types_.size() && types_[i] != nullptr; }
  // Throws when the input is omitted.
  const TensorType& input(size_t i) const;
  // nullptr when the input is not a constant.
  const Tensor* constant(size_t i) const;
  // Throws UnsupportedError when the input is not a compile-time constant.
  const Tensor& require_constant(size_t i, std::string_view what) const;
  size_t num_outputs() const { return node_.outputs.size(); }

  // Checks that input i has a dtype in `allowed`.
  void check_dtype(size_t i, DTypeSet allowed) const;
  void set_output(size_t i, TensorType type);
  std::vector<TensorType>& outputs() { return outputs_; }

 private:
  const Node& node_;
  std::vector<const TensorType*> types_;
  std::vector<const Tensor*> constants_;
  std::vector<TensorType> outputs_;
};

// What a reference kernel sees: the node, its input tensors (nullptr when
// omitted) and output tensors already allocated with the inferred types.
class KernelContext {
 public:
  KernelContext(const Node& node, std::vector<const Tensor*> inputs, std::vector<Tensor*> outputs)
      : node_(node), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}

  const Node& node() const { return node_; }
  const Attributes& attrs() const { return node_.attrs; }
  size_t num_inputs() const { return inputs_.size(); }
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  const Tensor& input(size_t i) const;
  size_t num_outputs() const { return outputs_.size(); }
  Tensor& output(size_t i) const;

 private:
  const Node& node_;
  std::vector<const Tensor*> inputs_;
  std::vector<Tensor*> outputs_;
};

using InferFn = void (*)(InferContext&);
using KernelFn = void (*)(KernelContext&);
// Multiply-accumulates of one node, from its input and output types.
using MacsFn = int64_t (*)(const Node&, const std::vector<TensorType>& inputs,
                           const std::vector<TensorType>& outputs);

struct OpDef {
  // The ONNX op type; ops of another domain carry it as a prefix
  // ("com.microsoft.Gelu"), as the importer names their nodes.
  std::string name;
  FusionKind kind = FusionKind::Opaque;
  InferFn infer = nullptr;
  KernelFn kernel = nullptr;
  MacsFn macs = nullptr;
  // Inputs that must be compile-time constants: those that decide output
  // shapes (Reshape's shape, Slice's starts ...), which a static-shape IR
  // needs, and those that decide the computation's structure (CumSum's axis,
  // Resize's roi, Dropout's ratio and training_mode), which a compiled kernel
  // bakes in, as TVM's frontends require them constant.
  std::vector<int> shape_inputs;
};

// Open to plugins (core/plugin), which define ops of their own while they
// load, before anything compiles; it is not locked for concurrent changes.
class OpRegistry {
 public:
  // All built-in ops with their inference; kernels come from core/reference.
  static OpRegistry& global();

  // Throws lathe::Error when an op of that name is already registered.
  OpDef& define(const std::string& name, FusionKind kind, InferFn infer);
  // Attaches the reference kernel; throws when the op is unknown or has one.
  void set_kernel(std::string_view name, KernelFn kernel);
  const OpDef* find(std::string_view name) const;
  OpDef* find_mutable(std::string_view name);
  std::vector<std::string> names() const;

 private:
  std::map<std::string, OpDef, std::less<>> ops_;
};

// Inference for one node of a graph, looking up its op; throws on problems.
std::vector<TensorType> infer_node_types(const OpDef& op, const Graph& graph, const Node& node);

// Registration of each op family, in core/ir/ops/*.cpp.
void register_elementwise_ops(OpRegistry& registry);
void register_nn_ops(OpRegistry& registry);
void register_shape_ops(OpRegistry& registry);
void register_control_flow_ops(OpRegistry& registry);
void register_reduce_ops(OpRegistry& registry);
void register_indexing_ops(OpRegistry& registry);
void register_loss_ops(OpRegistry& registry);
void register_layout_ops(OpRegistry& registry);
void register_quantize_ops(OpRegistry& registry);

}  // namespace lathe
