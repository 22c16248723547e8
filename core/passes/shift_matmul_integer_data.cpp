#include "passes/shift_matmul_integer_data.h"

#include "ir/ops/matmul_integer_packed.h"
#include "passes/graph_edit.h"

namespace lathe::passes {
namespace {

class DataShifter {
 public:
  explicit DataShifter(Graph& graph) : graph_(graph), names_(graph), emit_(graph, names_) {}

  bool convert(const Node& mm) {
    if (mm.op != "MatMulInteger" || mm.outputs.size() != 1 || !mm.has_input(0) || !mm.has_input(1))
      return false;
    const TensorType at = graph_.type(mm.inputs[0]);
    const Tensor* b = constant_input(graph_, mm, 1);
    // What the packed kernel takes, but for A's type.
    if (!b || at.dtype != DType::Int8 || at.rank() < 2 || b->dtype() != DType::Int8 ||
        b->rank() != 2 || b->shape()[0] % kMatMulIntegerGroup != 0)
      return false;
    int32_t zero = 0;
    if (mm.has_input(2)) {
      const Tensor* z = constant_input(graph_, mm, 2);
      // A per-row or variable zero point is left as is.
      if (!z || z->numel() != 1 || z->dtype() != DType::Int8) return false;
      zero = z->data<int8_t>()[0];
    }
    const std::string& name = mm.name;
    ValueId a = cast(mm.inputs[0], 6, name + "_a_widen");  // ONNX's INT32
    a = emit_.append(
        name + "_a_shift", "Add",
        {a, graph_.add_constant(names_.value(name + "_a_shift"), Tensor::scalar<int32_t>(128))}, {},
        "_shifted");
    a = cast(a, 2, name + "_a_unsigned");  // ONNX's UINT8
    const ValueId a_zero =
        graph_.add_constant(names_.value(name + "_a_zero_point_unsigned"),
                            Tensor::scalar<uint8_t>(static_cast<uint8_t>(zero + 128)));
    Node shifted = mm;
    shifted.inputs[0] = a;
    if (shifted.inputs.size() < 3) shifted.inputs.resize(3, kNoValue);
    shifted.inputs[2] = a_zero;
    graph_.add_node(std::move(shifted));
    return true;
  }

 private:
  ValueId cast(ValueId x, int64_t onnx_type, const std::string& name) {
    Attributes attrs;
    attrs.set("to", onnx_type);
    return emit_.append(name, "Cast", {x}, std::move(attrs), onnx_type == 6 ? "_i32" : "_u8");
  }

  Graph& graph_;
  NameTable names_;
  NodeEmitter emit_;
};

}  // namespace

Graph shift_matmul_integer_data(const Graph& input) {
  Graph graph = input;
  DataShifter shifter(graph);
  replace_nodes(graph, [&](const Node& node) { return shifter.convert(node); });
  return graph;
}

}  // namespace lathe::passes
