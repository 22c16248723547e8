// How the importer carries a model's float16 and bfloat16 values: Lathe
// stores them in 16 bits where the model meets the outside (graph inputs and
// outputs) and where the model itself rounds (a Cast to float16), and computes
// everything else in float32 (docs/ARCHITECTURE.md, "float16 and bfloat16").
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/graph.h"

namespace lathe::onnx_frontend {

class StorageFloats {
 public:
  // add_node types a node and adds it to the graph (or folds it), false when
  // it reported a problem: the importer's own add_typed_node; node_name
  // makes a node name unique among the model's.
  StorageFloats(Graph& graph, std::function<bool(Node)> add_node,
                std::function<std::string(const std::string&)> node_name)
      : graph_(graph), add_node_(std::move(add_node)), node_name_(std::move(node_name)) {}

  // An initializer or Constant of the model: float32 for a storage float,
  // remembered as stored in its own dtype.
  ValueId add_constant(const std::string& name, const Tensor& value);
  void note_constant(ValueId id, DType stored);

  // Rewrites a node before it is typed so that it computes in float32:
  // tensor attributes of a storage float are widened (ConstantOfShape's
  // value), a dtype attribute naming one becomes float32 (EyeLike), and a
  // CastLike to a value the model stores in 16 bits becomes a Cast, which
  // rounds. Returns the dtype the model stores the node's outputs in, if a
  // storage float.
  std::optional<DType> prepare(Node& node) const;
  // After the node is typed: its float32 outputs are stored as `stored`
  // (what prepare returned), else as its inputs are (an op's float output
  // has its inputs' type T), except a Cast's, whose type is its `to`.
  void note_node(const Node& node, std::optional<DType> stored);

  // The value the nodes that read `id` get: a value of a storage dtype (a
  // graph input, a Cast's result) widened to float32 by a Cast, `id` itself
  // otherwise. kNoValue when adding the Cast failed.
  ValueId widened(ValueId id);
  // The graph output for `id`, which the model declares as `declared`
  // (its ONNX elem_type, 0 when undeclared): when that is a storage float,
  // the 16-bit value `id` was widened from, or a Cast of `id` that takes the
  // output's name from it.
  ValueId output(ValueId id, int declared);

  // Where the model stores `id` in 16 bits: its dtype there.
  std::optional<DType> stored_dtype(ValueId id) const;

 private:
  ValueId add_cast(ValueId from, DType to, const std::string& name);
  std::string unique_value_name(const std::string& base) const;

  Graph& graph_;
  std::function<bool(Node)> add_node_;
  std::function<std::string(const std::string&)> node_name_;
  // Computed in float32, stored by the model in a 16-bit dtype.
  std::unordered_map<ValueId, DType> stored_;
  // A widened value -> the 16-bit value it widens.
  std::unordered_map<ValueId, ValueId> widened_from_;
};

}  // namespace lathe::onnx_frontend
