#include "passes/pad_matmul_integer_columns.h"

#include <algorithm>

#include "ir/ops/matmul_integer_packed.h"
#include "passes/graph_edit.h"

namespace lathe::passes {
namespace {

constexpr int64_t kLanes = kMatMulIntegerLanes;
constexpr int64_t kGroup = kMatMulIntegerGroup;

// The last axis of an int8 tensor ([K, N] or a per-column [N] zero point)
// padded with zeros from n to `padded` entries.
Tensor pad_columns(const Tensor& t, int64_t padded) {
  const int64_t n = t.shape().back(), rows = t.numel() / n;
  Shape shape = t.shape();
  shape.back() = padded;
  Tensor out(DType::Int8, shape);
  int8_t* dst = out.data<int8_t>();
  std::fill(dst, dst + out.numel(), int8_t{0});
  for (int64_t r = 0; r < rows; ++r) std::copy_n(t.data<int8_t>() + r * n, n, dst + r * padded);
  return out;
}

class ColumnPadder {
 public:
  explicit ColumnPadder(Graph& graph) : graph_(graph), names_(graph), emit_(graph, names_) {}

  bool convert(const Node& mm) {
    if (mm.op != "MatMulInteger" || mm.outputs.size() != 1 || !mm.has_input(0) || !mm.has_input(1))
      return false;
    const TensorType at = graph_.type(mm.inputs[0]);
    const Tensor* b = constant_input(graph_, mm, 1);
    // What pack_matmul_integer takes, but for N.
    if (!b || at.dtype != DType::UInt8 || at.rank() < 2 || b->dtype() != DType::Int8 ||
        b->rank() != 2)
      return false;
    const int64_t kdim = b->shape()[0], n = b->shape()[1];
    if (n % kLanes == 0 || kdim % kGroup != 0 || at.shape.back() != kdim) return false;
    if (mm.has_input(2) && graph_.type(mm.inputs[2]).numel() != 1) return false;
    const int64_t padded = (n + kLanes - 1) / kLanes * kLanes;
    const Tensor bt = *b;  // a copy: adding constants moves the graph's values
    ValueId b_zero = mm.has_input(3) ? mm.inputs[3] : kNoValue;
    if (b_zero != kNoValue && graph_.type(b_zero).numel() != 1) {
      // A per-column zero point gets zeros for the padded columns.
      const Tensor* z = constant_input(graph_, mm, 3);
      if (!z || z->dtype() != DType::Int8 || z->rank() != 1) return false;
      const Tensor zero = *z;  // a copy: adding constants moves the graph's values
      b_zero = graph_.add_constant(names_.value(mm.name + "_b_zero_point_padded"),
                                   pad_columns(zero, padded));
    }
    const ValueId b_padded =
        graph_.add_constant(names_.value(mm.name + "_b_padded"), pad_columns(bt, padded));
    std::vector<ValueId> inputs = {mm.inputs[0], b_padded,
                                   mm.has_input(2) ? mm.inputs[2] : kNoValue, b_zero};
    while (inputs.back() == kNoValue) inputs.pop_back();
    const ValueId wide = emit_.append(mm.name, "MatMulInteger", inputs, {}, "_padded_columns");

    Node slice;
    slice.name = names_.node(mm.name + "_columns");
    slice.op = "Slice";
    slice.inputs = {wide, emit_.ints(mm.name + "_columns_start", {0}),
                    emit_.ints(mm.name + "_columns_end", {n}),
                    emit_.ints(mm.name + "_columns_axis", {-1})};
    slice.outputs = mm.outputs;
    graph_.add_node(std::move(slice));
    return true;
  }

 private:
  Graph& graph_;
  NameTable names_;
  NodeEmitter emit_;
};

}  // namespace

Graph pad_matmul_integer_columns(const Graph& input) {
  Graph graph = input;
  ColumnPadder padder(graph);
  replace_nodes(graph, [&](const Node& node) { return padder.convert(node); });
  return graph;
}

}  // namespace lathe::passes
