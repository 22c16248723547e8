#include "ir/ops/infer_util.h"

#include <algorithm>
#include <string>

namespace lathe {

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      fail(str("shapes ", shape_to_string(a), " and ", shape_to_string(b), " do not broadcast"));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int normalize_axis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) fail(str("axis ", axis, " is out of range for rank ", rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

void infer_same_as_input(InferContext& ctx) {
  ctx.set_output(0, ctx.input(0));
}

void check_same_dtype(const InferContext& ctx) {
  DType t = ctx.input(0).dtype;
  for (size_t i = 1; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i) && ctx.input(i).dtype != t)
      fail(str("input ", i, " is ", dtype_name(ctx.input(i).dtype), " but input 0 is ",
               dtype_name(t)));
}

TensorType broadcast_inputs(const InferContext& ctx) {
  check_same_dtype(ctx);
  Shape shape = ctx.input(0).shape;
  for (size_t i = 1; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) shape = broadcast_shapes(shape, ctx.input(i).shape);
  return {ctx.input(0).dtype, shape};
}

TensorLayout pool_layout(const InferContext& ctx) {
  const std::string text = ctx.attrs().get_string("layout", "NCHW");
  const TensorLayout layout = TensorLayout::parse(text);
  LATHE_CHECK(layout.kind == TensorLayout::Kind::NCHW || layout.kind == TensorLayout::Kind::NCHWc,
              ctx.node().op, ": layout '", text, "' is not a data layout (NCHW or NCHW{b}c)");
  return layout;
}

std::vector<int64_t> ints_or(const Attributes& attrs, const char* op, const char* name, size_t n,
                             int64_t fallback) {
  std::vector<int64_t> v = attrs.get_ints(name);
  if (v.empty()) return std::vector<int64_t>(n, fallback);
  LATHE_CHECK(v.size() == n, op, ": attribute '", name, "' has ", v.size(), " values, expected ",
              n);
  return v;
}

}  // namespace lathe
