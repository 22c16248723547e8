// The nodes an import-time rewrite expands one ONNX node into, appended in
// order, each named and its output value named after the original node;
// their types are inferred when the importer adds them.
#pragma once

#include <string>
#include <vector>

#include "frontend/onnx/import_internal.h"

namespace lathe::onnx_frontend {

class NodeSequence {
 public:
  NodeSequence(const std::string& prefix, const UpgradeHooks& hooks)
      : prefix_(prefix), hooks_(hooks) {}

  ValueId op(const std::string& op, std::vector<ValueId> inputs, Attributes attrs = {}) {
    return into(hooks_.add_value(next_name(op)), op, std::move(inputs), std::move(attrs));
  }
  // The node writes `out`, one of the layer's own output values.
  ValueId into(ValueId out, const std::string& op, std::vector<ValueId> inputs,
               Attributes attrs = {}) {
    Node node;
    node.name = next_name(op);
    node.op = op;
    node.inputs = std::move(inputs);
    node.attrs = std::move(attrs);
    node.outputs = {out};
    nodes.push_back(std::move(node));
    return out;
  }
  ValueId ints(const std::vector<int64_t>& values) {
    return hooks_.add_constant(next_name("ints"),
                               Tensor::from_vector(values, {static_cast<int64_t>(values.size())}));
  }
  ValueId scalar(float value) {
    return hooks_.add_constant(next_name("scalar"), Tensor::scalar(value));
  }
  ValueId zeros(const Shape& shape) {
    return hooks_.add_constant(next_name("zeros"), Tensor(DType::Float32, shape));
  }

  // [begin, end) of `axis`.
  ValueId slice(ValueId v, int64_t axis, int64_t begin, int64_t end) {
    return op("Slice", {v, ints({begin}), ints({end}), ints({axis})});
  }
  ValueId reshape(ValueId v, const std::vector<int64_t>& shape) {
    return op("Reshape", {v, ints(shape)});
  }
  ValueId transpose(ValueId v, const std::vector<int64_t>& perm) {
    Attributes a;
    a.set("perm", perm);
    return op("Transpose", {v}, std::move(a));
  }
  ValueId concat(std::vector<ValueId> parts, int64_t axis, ValueId out = kNoValue) {
    if (parts.size() == 1 && out == kNoValue) return parts[0];
    Attributes a;
    a.set("axis", axis);
    return out == kNoValue ? op("Concat", std::move(parts), std::move(a))
                           : into(out, "Concat", std::move(parts), std::move(a));
  }

  std::vector<Node> nodes;

 private:
  std::string next_name(const std::string& what) {
    return prefix_ + "/" + std::to_string(counter_++) + "_" + what;
  }

  std::string prefix_;
  const UpgradeHooks& hooks_;
  int counter_ = 0;
};

}  // namespace lathe::onnx_frontend
