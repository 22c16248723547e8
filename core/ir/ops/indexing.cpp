// Inference for the indexing ops: element and N-D gathers and scatters
// (GatherElements, ScatterElements and its opset-9 alias Scatter, GatherND,
// ScatterND), OneHot, Trilu, EyeLike, TopK, CumSum, Hardmax and
// MeanVarianceNormalization, with ONNX semantics up to opset 17.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

// The value of a single-element integer input (TopK's K, OneHot's depth, a
// constant CumSum axis); scalars and 1-element 1-D tensors are both accepted.
int64_t single_int(const Tensor& t, const char* what) {
  LATHE_CHECK(t.numel() == 1 && t.rank() <= 1, what, " must hold a single value, got ",
              t.type().to_string());
  if (is_integer(t.dtype())) return t.to_int64_vector()[0];
  // OneHot allows a float depth; a C++ cast of a non-finite or huge double is
  // undefined, so it is checked first.
  double v = t.element_as_double(0);
  LATHE_CHECK(std::isfinite(v) && std::abs(v) < 9.0e18, what, " ", v, " is not a usable integer");
  return static_cast<int64_t>(v);
}

// Reduction attribute of the scatter ops: none/add/mul (opset 16) and
// max/min (opset 18, accepted as they cost nothing).
void check_reduction(const InferContext& ctx) {
  std::string r = ctx.attrs().get_string("reduction", "none");
  LATHE_CHECK(r == "none" || r == "add" || r == "mul" || r == "max" || r == "min",
              "unknown reduction '", r, "'");
  if (r != "none") ctx.check_dtype(0, kNumericTypes);
}

// GatherElements and ScatterElements index `data` element by element with an
// `indices` tensor of the same rank; off the axis, each index position is read
// as a data position, so indices may not be larger there.
int check_element_indices(const InferContext& ctx, const TensorType& data,
                          const TensorType& indices) {
  LATHE_CHECK(data.rank() >= 1, "data must have rank >= 1, got ", data.to_string());
  LATHE_CHECK(indices.rank() == data.rank(), "indices ", indices.to_string(),
              " must have the rank of data ", data.to_string());
  int axis = normalize_axis(ctx.attrs().get_int("axis", 0), data.rank());
  for (int d = 0; d < data.rank(); ++d) {
    size_t i = static_cast<size_t>(d);
    LATHE_CHECK(d == axis || indices.shape[i] <= data.shape[i], "indices ", indices.to_string(),
                " exceed data ", data.to_string(), " in dimension ", d, " (axis is ", axis, ")");
  }
  return axis;
}

void infer_gather_elements(InferContext& ctx) {
  ctx.check_dtype(1, kIndexTypes);
  const TensorType& data = ctx.input(0);
  const TensorType& indices = ctx.input(1);
  check_element_indices(ctx, data, indices);
  ctx.set_output(0, {data.dtype, indices.shape});
}

// ScatterElements, and Scatter (opset 9-10), which is the same without reduction.
void infer_scatter_elements(InferContext& ctx) {
  ctx.check_dtype(1, kIndexTypes);
  const TensorType& data = ctx.input(0);
  const TensorType& indices = ctx.input(1);
  const TensorType& updates = ctx.input(2);
  LATHE_CHECK(updates.dtype == data.dtype, "updates are ", dtype_name(updates.dtype),
              " but data is ", dtype_name(data.dtype));
  LATHE_CHECK(updates.shape == indices.shape, "updates ", updates.to_string(),
              " must have the shape of indices ", indices.to_string());
  check_element_indices(ctx, data, indices);
  check_reduction(ctx);
  ctx.set_output(0, data);
}

void infer_gather_nd(InferContext& ctx) {
  ctx.check_dtype(1, kIndexTypes);
  const TensorType& data = ctx.input(0);
  const TensorType& indices = ctx.input(1);
  const int r = data.rank(), q = indices.rank();
  LATHE_CHECK(r >= 1 && q >= 1, "data ", data.to_string(), " and indices ", indices.to_string(),
              " must both have rank >= 1");
  int64_t b = ctx.attrs().get_int("batch_dims", 0);
  LATHE_CHECK(b >= 0 && b < std::min(q, r), "batch_dims ", b, " must lie in [0, ", std::min(q, r),
              ")");
  for (int64_t d = 0; d < b; ++d)
    LATHE_CHECK(data.shape[static_cast<size_t>(d)] == indices.shape[static_cast<size_t>(d)],
                "batch dimension ", d, " differs between data ", data.to_string(), " and indices ",
                indices.to_string());
  int64_t m = indices.shape.back();
  LATHE_CHECK(m >= 1 && m <= r - b, "the last dimension of indices ", indices.to_string(),
              " must lie in [1, ", r - b, "]");
  // Output: the index tuples' positions, then the slice that each one selects.
  Shape out(indices.shape.begin(), indices.shape.end() - 1);
  out.insert(out.end(), data.shape.begin() + b + m, data.shape.end());
  ctx.set_output(0, {data.dtype, out});
}

void infer_scatter_nd(InferContext& ctx) {
  ctx.check_dtype(1, kIndexTypes);
  const TensorType& data = ctx.input(0);
  const TensorType& indices = ctx.input(1);
  const TensorType& updates = ctx.input(2);
  LATHE_CHECK(data.rank() >= 1 && indices.rank() >= 1, "data ", data.to_string(), " and indices ",
              indices.to_string(), " must both have rank >= 1");
  LATHE_CHECK(updates.dtype == data.dtype, "updates are ", dtype_name(updates.dtype),
              " but data is ", dtype_name(data.dtype));
  int64_t k = indices.shape.back();
  LATHE_CHECK(k <= data.rank(), "the last dimension of indices ", indices.to_string(),
              " exceeds the rank of data ", data.to_string());
  // One update slice per index tuple: indices.shape[:-1] + data.shape[k:].
  Shape expected(indices.shape.begin(), indices.shape.end() - 1);
  expected.insert(expected.end(), data.shape.begin() + k, data.shape.end());
  LATHE_CHECK(updates.shape == expected, "updates ", updates.to_string(), " should have shape ",
              shape_to_string(expected), " for data ", data.to_string(), " and indices ",
              indices.to_string());
  check_reduction(ctx);
  ctx.set_output(0, data);
}

void infer_one_hot(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  ctx.check_dtype(1, kNumericTypes);
  const TensorType& indices = ctx.input(0);
  const TensorType& values = ctx.input(2);
  LATHE_CHECK(values.rank() == 1 && values.numel() == 2,
              "values must be [off_value, on_value], got ", values.to_string());
  int64_t depth = single_int(ctx.require_constant(1, "depth"), "depth");
  LATHE_CHECK(depth >= 1, "depth ", depth, " must be positive");
  // The new axis is one of the output's, so it may equal the indices' rank.
  int axis = normalize_axis(ctx.attrs().get_int("axis", -1), indices.rank() + 1);
  Shape out = indices.shape;
  out.insert(out.begin() + axis, depth);
  ctx.set_output(0, {values.dtype, out});
}

void infer_trilu(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  LATHE_CHECK(x.rank() >= 2, "input must have rank >= 2, got ", x.to_string());
  if (ctx.has_input(1)) {
    ctx.check_dtype(1, kIndexTypes);
    LATHE_CHECK(ctx.input(1).numel() == 1, "k must be a scalar, got ", ctx.input(1).to_string());
  }
  infer_same_as_input(ctx);
}

void infer_eye_like(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  LATHE_CHECK(x.rank() == 2, "input must be 2-D, got ", x.to_string());
  DType dtype = x.dtype;
  if (ctx.attrs().has("dtype")) {
    int code = static_cast<int>(ctx.attrs().get_int("dtype", 0));
    auto t = dtype_from_onnx(code);
    if (!t) fail_unsupported(str("dtype ", onnx_dtype_name(code), " is not supported"));
    dtype = *t;
  }
  ctx.set_output(0, {dtype, x.shape});
}

void infer_top_k(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  const TensorType& x = ctx.input(0);
  LATHE_CHECK(x.rank() >= 1, "input must have rank >= 1, got a scalar");
  int axis = normalize_axis(ctx.attrs().get_int("axis", -1), x.rank());
  ctx.check_dtype(1, kIndexTypes);
  int64_t k = single_int(ctx.require_constant(1, "K"), "K");
  int64_t n = x.shape[static_cast<size_t>(axis)];
  LATHE_CHECK(k >= 0 && k <= n, "K = ", k, " is out of range for dimension ", axis, " of ",
              x.to_string());
  Shape out = x.shape;
  out[static_cast<size_t>(axis)] = k;
  ctx.set_output(0, {x.dtype, out});
  ctx.set_output(1, {DType::Int64, out});
}

void infer_cumsum(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  const TensorType& x = ctx.input(0);
  LATHE_CHECK(x.rank() >= 1, "input must have rank >= 1, got a scalar");
  ctx.check_dtype(1, kIndexTypes);
  LATHE_CHECK(ctx.input(1).numel() == 1 && ctx.input(1).rank() <= 1,
              "axis must hold a single value, got ", ctx.input(1).to_string());
  // The axis does not decide the shape, so it may be a runtime value; a
  // constant one is checked here already.
  if (const Tensor* axis = ctx.constant(1)) normalize_axis(single_int(*axis, "axis"), x.rank());
  infer_same_as_input(ctx);
}

void infer_hardmax(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  const TensorType& x = ctx.input(0);
  LATHE_CHECK(x.rank() >= 1, "input must have rank >= 1, got a scalar");
  normalize_axis(ctx.attrs().get_int("axis", -1), x.rank());
  infer_same_as_input(ctx);
}

void infer_mvn(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  const TensorType& x = ctx.input(0);
  std::set<int> seen;
  for (int64_t a : ctx.attrs().get_ints("axes", {0, 2, 3}))
    LATHE_CHECK(seen.insert(normalize_axis(a, x.rank())).second, "axis ", a, " is repeated");
  infer_same_as_input(ctx);
}

}  // namespace

void register_indexing_ops(OpRegistry& r) {
  using K = FusionKind;
  r.define("GatherElements", K::Injective, infer_gather_elements);
  r.define("ScatterElements", K::Injective, infer_scatter_elements);
  r.define("Scatter", K::Injective, infer_scatter_elements);
  r.define("GatherND", K::Injective, infer_gather_nd);
  r.define("ScatterND", K::Injective, infer_scatter_nd);
  r.define("OneHot", K::Injective, infer_one_hot).shape_inputs = {1};
  r.define("Trilu", K::Injective, infer_trilu);
  r.define("EyeLike", K::Injective, infer_eye_like);
  r.define("TopK", K::Opaque, infer_top_k).shape_inputs = {1};
  r.define("CumSum", K::Opaque, infer_cumsum).shape_inputs = {1};
  r.define("Hardmax", K::Opaque, infer_hardmax);
  r.define("MeanVarianceNormalization", K::Opaque, infer_mvn);
}

}  // namespace lathe
