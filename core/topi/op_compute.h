// TOPI's inventory: for every graph op, its compute definition in tensor
// expressions, and for the ops that anchor a fused group (conv, dense,
// pooling ...) a tuning template for the whole group, whose default config is
// the x86 default schedule. The tuner (core/tune) builds one TE computation
// per fused group by calling the compute of each node in order, then
// schedules it from the anchor's template or the generic one
// (topi/generic_template.h).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "schedule/schedule.h"
#include "support/vector_unit.h"
#include "te/tensor.h"
#include "topi/config_space.h"

namespace lathe::topi {

// The element type of tensor expressions for a graph dtype (bool is uint1).
te::DataType te_dtype(DType dtype);

// What an op's compute definition sees of one node.
class ComputeContext {
 public:
  // `inputs[i]` is undefined for an omitted input and for an input the op
  // reads only as a constant (OpDef::shape_inputs); `constants[i]` is the
  // value of input i when it is a compile-time constant, else nullptr.
  ComputeContext(const Node& node, std::vector<te::Tensor> inputs,
                 std::vector<const lathe::Tensor*> constants, std::vector<TensorType> input_types,
                 std::vector<TensorType> output_types, std::string base_name);

  const Node& node() const { return node_; }
  const Attributes& attrs() const { return node_.attrs; }
  size_t num_inputs() const { return inputs_.size(); }
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i].defined(); }
  // Throws lathe::Error naming the node when the input is omitted or only a constant.
  const te::Tensor& input(size_t i) const;
  // nullptr when input i is omitted or not a compile-time constant.
  const lathe::Tensor* constant(size_t i) const;
  // Throws UnsupportedError naming the node when input i is not a constant.
  const lathe::Tensor& require_constant(size_t i, std::string_view what) const;
  const TensorType& input_type(size_t i) const;
  size_t num_outputs() const { return output_types_.size(); }
  const TensorType& output_type(size_t i) const;

  // A name for a stage of this node that is unique within the fused group and
  // a Python identifier (schedule text refers to stages by it): the node's
  // base name ("conv2d_nchwc", "add_1"), with "_suffix" when given.
  std::string name(std::string_view suffix = {}) const;

 private:
  const Node& node_;
  std::vector<te::Tensor> inputs_;
  std::vector<const lathe::Tensor*> constants_;
  std::vector<TensorType> input_types_, output_types_;
  std::string base_name_;
};

// One te::Tensor per node output (kNoValue outputs may be left undefined).
// Throws UnsupportedError for attribute combinations it cannot express.
using OpComputeFn = std::vector<te::Tensor> (*)(const ComputeContext&);

// The tuning template of a fused group anchored by this op: the search space
// of the group's schedules, made from the computation's shapes. `anchor` is
// the anchor node's (first) output tensor, `outputs` the group's output
// tensors; the space's apply schedules every stage of the group (inlining the
// elementwise epilogue where it can) and records its primitives in the trace;
// its default config is the schedule the compiler uses untuned. Register
// budgets and vector lengths come from the target's `vector_unit`.
using OpTemplateFn = SearchSpace (*)(const te::Tensor& anchor,
                                     const std::vector<te::Tensor>& outputs,
                                     const VectorUnit& vector_unit);

// An op's compute (one for every target) and its tuning templates, one per
// target kind (TVM's strategies per target key): the same op schedules one
// way for the CPU and another for a GPU.
struct OpStrategy {
  OpComputeFn compute = nullptr;
  // The CPU ("llvm") template; nullptr: the generic template. Its default
  // config is the op's untuned schedule.
  OpTemplateFn tuning_template = nullptr;
  // The templates of the other target kinds ("cuda" ...), by kind name.
  std::map<std::string, OpTemplateFn, std::less<>> templates = {};

  // The template for a target kind ("llvm", "cuda"); nullptr: none, the
  // kind's generic template schedules the group.
  OpTemplateFn template_for(std::string_view target_kind) const;
};

// Open to plugins (core/plugin), which add computes while they load, before
// anything compiles; it is not locked for concurrent changes.
class OpStrategyRegistry {
 public:
  // Every op with a compute definition, registered on first use.
  static OpStrategyRegistry& global();

  // Each throws lathe::Error when the op already has one (a template: for
  // that target kind; without a kind, the template is the CPU's, "llvm").
  void define_compute(const std::string& op, OpComputeFn fn);
  void define_template(const std::string& op, OpTemplateFn fn);
  void define_template(const std::string& op, const std::string& target_kind, OpTemplateFn fn);
  const OpStrategy* find(std::string_view op) const;  // nullptr: no compute for that op
  std::vector<std::string> names() const;

 private:
  std::map<std::string, OpStrategy, std::less<>> ops_;
};

// Registration of each op family, in core/topi/*_compute.cpp.
void register_elementwise_computes(OpStrategyRegistry& registry);
void register_shape_computes(OpStrategyRegistry& registry);
void register_reduce_computes(OpStrategyRegistry& registry);
void register_indexing_computes(OpStrategyRegistry& registry);
void register_nn_computes(OpStrategyRegistry& registry);
void register_layout_computes(OpStrategyRegistry& registry);
void register_extra_computes(OpStrategyRegistry& registry);
void register_quantize_computes(OpStrategyRegistry& registry);
void register_int8_computes(OpStrategyRegistry& registry);            // int8_strategy.cpp
void register_int8_depthwise_computes(OpStrategyRegistry& registry);  // int8_depthwise.cpp

}  // namespace lathe::topi
