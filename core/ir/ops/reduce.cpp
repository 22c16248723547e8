// Inference for the reduce op family: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/
// LogSumExp/SumSquare and ArgMax/ArgMin, with ONNX semantics up to opset 17.
#include <algorithm>

#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

// Which axes of input 0 a Reduce* node reduces. ReduceSum (opset 13+, and the
// importer's rewrite of older ReduceSum) takes its axes from input 1; the other
// Reduce* ops take the "axes" attribute. Reading input 1 for every Reduce* also
// covers opset 18, which moved all of them to the input form.
std::vector<bool> reduced_axes(const InferContext& ctx) {
  const int rank = ctx.input(0).rank();
  std::vector<int64_t> axes;
  const bool from_input = ctx.has_input(1);
  if (from_input) {
    LATHE_CHECK(!ctx.attrs().has("axes"), "axes given both as input 1 and as an attribute");
    const Tensor& t = ctx.require_constant(1, "axes");
    LATHE_CHECK(is_integer(t.dtype()), "axes input must be int64, got ", dtype_name(t.dtype()));
    LATHE_CHECK(t.rank() <= 1, "axes input must be 1-D, got shape ", shape_to_string(t.shape()));
    axes = t.to_int64_vector();
  } else {
    axes = ctx.attrs().get_ints("axes");
  }
  if (axes.empty()) {
    // Empty or absent axes reduce everything, unless noop_with_empty_axes asks
    // for a reduction over no axis at all (each output element is one input).
    const bool noop = ctx.attrs().get_int("noop_with_empty_axes", 0) != 0;
    return std::vector<bool>(static_cast<size_t>(rank), !noop);
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    const int axis = normalize_axis(a, rank);
    LATHE_CHECK(!reduced[static_cast<size_t>(axis)], "axis ", a, " is listed twice in axes ",
                shape_to_string(axes));
    reduced[static_cast<size_t>(axis)] = true;
  }
  return reduced;
}

Shape reduced_shape(const Shape& in, const std::vector<bool>& reduced, bool keepdims) {
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!reduced[d])
      out.push_back(in[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

void infer_reduce(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  const TensorType& x = ctx.input(0);
  const bool keepdims = ctx.attrs().get_int("keepdims", 1) != 0;
  ctx.set_output(0, {x.dtype, reduced_shape(x.shape, reduced_axes(ctx), keepdims)});
}

void infer_arg_reduce(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  const TensorType& x = ctx.input(0);
  LATHE_CHECK(x.rank() >= 1, "input must have rank >= 1, got a scalar");
  const int axis = normalize_axis(ctx.attrs().get_int("axis", 0), x.rank());
  // The index of an extreme of nothing is undefined; numpy raises too.
  LATHE_CHECK(x.shape[static_cast<size_t>(axis)] > 0, "cannot take the ", ctx.node().op,
              " of an empty axis ", axis, " of ", x.to_string());
  std::vector<bool> reduced(static_cast<size_t>(x.rank()), false);
  reduced[static_cast<size_t>(axis)] = true;
  const bool keepdims = ctx.attrs().get_int("keepdims", 1) != 0;
  ctx.set_output(0, {DType::Int64, reduced_shape(x.shape, reduced, keepdims)});
}

}  // namespace

void register_reduce_ops(OpRegistry& r) {
  for (const char* op :
       {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    // The optional axes input decides the output shape.
    r.define(op, FusionKind::CommReduce, infer_reduce).shape_inputs = {1};
  }
  for (const char* op : {"ArgMax", "ArgMin"})
    r.define(op, FusionKind::CommReduce, infer_arg_reduce);
}

}  // namespace lathe
