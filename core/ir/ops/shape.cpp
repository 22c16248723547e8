// Inference for the shape and data-movement ops: reshapes, transposes, slicing,
// concatenation, gathering, padding, tiling, resizing, and the shape-valued ops
// (Shape, Size, Constant, ConstantOfShape, Range) that constant folding removes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

#include "ir/ops/grid_sample_geometry.h"
#include "ir/ops/infer_util.h"
#include "support/int_math.h"

namespace lathe {
namespace {

// Values of a shape-deciding input, which a static-shape IR needs as a constant.
std::vector<int64_t> const_ints(const InferContext& ctx, size_t i, const char* what) {
  const Tensor& t = ctx.require_constant(i, what);
  if (!is_integer(t.dtype()))
    fail(str("input ", i, " (", what, ") must be an integer tensor, got ", t.type().to_string()));
  return t.to_int64_vector();
}

// Normalizes a list of axes and rejects repeats (Squeeze, Unsqueeze, Slice).
std::vector<int> normalize_axes(const std::vector<int64_t>& axes, int rank) {
  std::vector<int> out;
  std::set<int> seen;
  for (int64_t a : axes) {
    int n = normalize_axis(a, rank);
    if (!seen.insert(n).second) fail(str("axis ", a, " is repeated"));
    out.push_back(n);
  }
  return out;
}

void infer_identity(InferContext& ctx) {
  infer_same_as_input(ctx);
}

void infer_flatten(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  // axis lies in [-rank, rank]; it may equal the rank (the output is then
  // [numel, 1]), and a negative one counts from the back of the input.
  int64_t axis_attr = ctx.attrs().get_int("axis", 1);
  int axis =
      axis_attr < 0 ? normalize_axis(axis_attr, x.rank()) : normalize_axis(axis_attr, x.rank() + 1);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < x.rank(); ++d) (d < axis ? outer : inner) *= x.shape[static_cast<size_t>(d)];
  ctx.set_output(0, {x.dtype, {outer, inner}});
}

void infer_reshape(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  std::vector<int64_t> target = const_ints(ctx, 1, "shape");
  bool allowzero = ctx.attrs().get_int("allowzero", 0) != 0;
  Shape out(target.size());
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == -1) {
      LATHE_CHECK(infer_at < 0, "more than one -1 in shape ", shape_to_string(target));
      infer_at = static_cast<int>(i);
      continue;
    }
    if (d == 0 && !allowzero) {
      // 0 copies the input dimension at the same position.
      LATHE_CHECK(static_cast<int>(i) < x.rank(), "shape ", shape_to_string(target),
                  " has a 0 at position ", i, " beyond the input rank ", x.rank());
      d = x.shape[i];
    }
    LATHE_CHECK(d >= 0, "invalid dimension ", d, " in shape ", shape_to_string(target));
    out[i] = d;
    known = checked_mul(known, d, "the shape's element count");
  }
  if (infer_at >= 0) {
    LATHE_CHECK(known != 0 && x.numel() % known == 0, "cannot reshape ", x.to_string(), " to ",
                shape_to_string(target));
    out[static_cast<size_t>(infer_at)] = x.numel() / known;
  }
  LATHE_CHECK(shape_numel(out) == x.numel(), "cannot reshape ", x.to_string(), " (", x.numel(),
              " elements) to ", shape_to_string(out), " (", shape_numel(out), " elements)");
  ctx.set_output(0, {x.dtype, out});
}

void infer_transpose(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  std::vector<int64_t> perm = ctx.attrs().get_ints("perm");
  if (!ctx.attrs().has("perm")) {
    perm.resize(static_cast<size_t>(x.rank()));
    for (int d = 0; d < x.rank(); ++d) perm[static_cast<size_t>(d)] = x.rank() - 1 - d;
  }
  LATHE_CHECK(static_cast<int>(perm.size()) == x.rank(), "perm ", shape_to_string(perm),
              " does not match input rank ", x.rank());
  std::vector<int> axes = normalize_axes(perm, x.rank());
  Shape out;
  for (int a : axes) out.push_back(x.shape[static_cast<size_t>(a)]);
  ctx.set_output(0, {x.dtype, out});
}

void infer_concat(InferContext& ctx) {
  LATHE_CHECK(ctx.num_inputs() >= 1, "Concat needs at least one input");
  check_same_dtype(ctx);
  const TensorType& first = ctx.input(0);
  LATHE_CHECK(ctx.attrs().has("axis"), "attribute 'axis' is required");
  int axis = normalize_axis(ctx.attrs().get_int("axis", 0), first.rank());
  Shape out = first.shape;
  out[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const TensorType& t = ctx.input(i);
    LATHE_CHECK(t.rank() == first.rank(), "input ", i, " ", t.to_string(),
                " has another rank than input 0 ", first.to_string());
    for (int d = 0; d < t.rank(); ++d)
      LATHE_CHECK(
          d == axis || t.shape[static_cast<size_t>(d)] == first.shape[static_cast<size_t>(d)],
          "input ", i, " ", t.to_string(), " differs from input 0 ", first.to_string(),
          " in dimension ", d, " (concatenating along ", axis, ")");
    out[static_cast<size_t>(axis)] += t.shape[static_cast<size_t>(axis)];
  }
  ctx.set_output(0, {first.dtype, out});
}

void infer_split(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  int axis = normalize_axis(ctx.attrs().get_int("axis", 0), x.rank());
  int64_t dim = x.shape[static_cast<size_t>(axis)];
  size_t n = ctx.num_outputs();
  LATHE_CHECK(n >= 1, "Split needs at least one output");
  std::vector<int64_t> sizes;
  if (ctx.has_input(1)) {
    sizes = const_ints(ctx, 1, "split");
    LATHE_CHECK(sizes.size() == n, "'split' has ", sizes.size(), " entries for ", n, " outputs");
    int64_t total = 0;
    for (int64_t s : sizes) {
      LATHE_CHECK(s >= 0, "negative size in 'split' ", shape_to_string(sizes));
      total += s;
    }
    LATHE_CHECK(total == dim, "'split' ", shape_to_string(sizes), " sums to ", total,
                " but dimension ", axis, " of ", x.to_string(), " is ", dim);
  } else if (ctx.attrs().has("num_outputs")) {
    // Opset 18 form: ceil-sized chunks, the last one smaller.
    int64_t k = ctx.attrs().get_int("num_outputs", 0);
    LATHE_CHECK(k == static_cast<int64_t>(n), "num_outputs ", k, " but the node has ", n,
                " outputs");
    int64_t chunk = (dim + k - 1) / k;
    for (int64_t i = 0; i < k; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  } else {
    LATHE_CHECK(dim % static_cast<int64_t>(n) == 0, "dimension ", axis, " of ", x.to_string(),
                " does not divide into ", n, " equal parts");
    sizes.assign(n, dim / static_cast<int64_t>(n));
  }
  for (size_t i = 0; i < n; ++i) {
    Shape s = x.shape;
    s[static_cast<size_t>(axis)] = sizes[i];
    ctx.set_output(i, {x.dtype, s});
  }
}

// ONNX Slice on one axis: clamps start/end into range the way the spec does,
// then counts the elements taken with the given step.
int64_t slice_count(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? (end - start - 1) / step + 1 : 0;
  }
  if (dim == 0) return 0;  // clamping into [0, dim - 1] needs a non-empty axis
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  // |step| in unsigned arithmetic, so that INT64_MIN does not overflow.
  uint64_t stride = uint64_t{0} - static_cast<uint64_t>(step);
  return start > end ? static_cast<int64_t>(static_cast<uint64_t>(start - end - 1) / stride) + 1
                     : 0;
}

void infer_slice(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  std::vector<int64_t> starts = const_ints(ctx, 1, "starts");
  std::vector<int64_t> ends = const_ints(ctx, 2, "ends");
  LATHE_CHECK(starts.size() == ends.size(), "starts has ", starts.size(), " entries but ends has ",
              ends.size());
  std::vector<int64_t> axes_in;
  if (ctx.has_input(3)) {
    axes_in = const_ints(ctx, 3, "axes");
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes_in.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> steps(starts.size(), 1);
  if (ctx.has_input(4)) steps = const_ints(ctx, 4, "steps");
  LATHE_CHECK(axes_in.size() == starts.size() && steps.size() == starts.size(),
              "starts, ends, axes and steps must have the same length");
  std::vector<int> axes = normalize_axes(axes_in, x.rank());
  Shape out = x.shape;
  for (size_t i = 0; i < axes.size(); ++i) {
    LATHE_CHECK(steps[i] != 0, "step 0 on axis ", axes_in[i]);
    out[static_cast<size_t>(axes[i])] =
        slice_count(x.shape[static_cast<size_t>(axes[i])], starts[i], ends[i], steps[i]);
  }
  ctx.set_output(0, {x.dtype, out});
}

void infer_gather(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  ctx.check_dtype(1, kIndexTypes);
  const TensorType& idx = ctx.input(1);
  LATHE_CHECK(x.rank() >= 1, "data must have rank >= 1");
  int axis = normalize_axis(ctx.attrs().get_int("axis", 0), x.rank());
  Shape out(x.shape.begin(), x.shape.begin() + axis);
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
  ctx.set_output(0, {x.dtype, out});
}

void infer_squeeze(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  std::vector<bool> drop(static_cast<size_t>(x.rank()), false);
  std::vector<int64_t> axes;
  if (ctx.has_input(1)) axes = const_ints(ctx, 1, "axes");
  // No axes, or an empty list as some exporters write, squeezes every 1.
  if (!axes.empty()) {
    for (int a : normalize_axes(axes, x.rank())) {
      LATHE_CHECK(x.shape[static_cast<size_t>(a)] == 1, "dimension ", a, " of ", x.to_string(),
                  " is not 1");
      drop[static_cast<size_t>(a)] = true;
    }
  } else {
    for (size_t d = 0; d < drop.size(); ++d) drop[d] = x.shape[d] == 1;
  }
  Shape out;
  for (size_t d = 0; d < drop.size(); ++d)
    if (!drop[d]) out.push_back(x.shape[d]);
  ctx.set_output(0, {x.dtype, out});
}

void infer_unsqueeze(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  std::vector<int64_t> axes_in = const_ints(ctx, 1, "axes");
  int out_rank = x.rank() + static_cast<int>(axes_in.size());
  // Axes index the output, so they are normalized against its rank.
  std::vector<int> axes = normalize_axes(axes_in, out_rank);
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int a : axes) inserted[static_cast<size_t>(a)] = true;
  Shape out;
  size_t next = 0;
  for (int d = 0; d < out_rank; ++d)
    out.push_back(inserted[static_cast<size_t>(d)] ? 1 : x.shape[next++]);
  ctx.set_output(0, {x.dtype, out});
}

void infer_shape(InferContext& ctx) {
  int rank = ctx.input(0).rank();
  // Opset 15 start/end: negative counts from the back, both clamp to [0, rank].
  int64_t start = ctx.attrs().get_int("start", 0);
  int64_t end = ctx.attrs().get_int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  ctx.set_output(0, {DType::Int64, {std::max<int64_t>(0, end - start)}});
}

void infer_size(InferContext& ctx) {
  ctx.input(0);
  ctx.set_output(0, {DType::Int64, {}});
}

void infer_constant(InferContext& ctx) {
  const Attributes& a = ctx.attrs();
  if (a.has("value")) {
    ctx.set_output(0, a.get_tensor("value").type());
  } else if (a.has("value_float")) {
    ctx.set_output(0, {DType::Float32, {}});
  } else if (a.has("value_floats")) {
    ctx.set_output(0,
                   {DType::Float32, {static_cast<int64_t>(a.get_floats("value_floats").size())}});
  } else if (a.has("value_int")) {
    ctx.set_output(0, {DType::Int64, {}});
  } else if (a.has("value_ints")) {
    ctx.set_output(0, {DType::Int64, {static_cast<int64_t>(a.get_ints("value_ints").size())}});
  } else if (a.has("sparse_value") || a.has("value_string") || a.has("value_strings")) {
    fail_unsupported("sparse and string values are not supported");
  } else {
    fail("none of the attributes value, value_float(s), value_int(s) is set");
  }
}

void infer_constant_of_shape(InferContext& ctx) {
  std::vector<int64_t> shape = const_ints(ctx, 0, "shape");
  DType dtype = DType::Float32;
  if (ctx.attrs().has("value")) {
    const Tensor& v = ctx.attrs().get_tensor("value");
    LATHE_CHECK(v.numel() == 1, "'value' must hold one element, got ", v.type().to_string());
    dtype = v.dtype();
  }
  for (int64_t d : shape) LATHE_CHECK(d >= 0, "negative dimension in ", shape_to_string(shape));
  ctx.set_output(0, {dtype, shape});
}

void infer_dropout(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  // Inference mode is the identity; training mode is checked by the kernel,
  // because training_mode is usually a runtime input.
  ctx.set_output(0, x);
  ctx.set_output(1, {DType::Bool, x.shape});
}

void infer_pad(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  std::string mode = ctx.attrs().get_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    fail_unsupported(str("mode '", mode, "' is not supported"));
  std::vector<int64_t> pads = const_ints(ctx, 1, "pads");
  std::vector<int> axes;
  if (ctx.has_input(3)) {
    axes = normalize_axes(const_ints(ctx, 3, "axes"), x.rank());
  } else {
    for (int d = 0; d < x.rank(); ++d) axes.push_back(d);
  }
  LATHE_CHECK(pads.size() == 2 * axes.size(), "'pads' has ", pads.size(), " entries, expected ",
              2 * axes.size(), " for input ", x.to_string());
  if (ctx.has_input(2)) {
    LATHE_CHECK(ctx.input(2).dtype == x.dtype, "constant_value is ", dtype_name(ctx.input(2).dtype),
                " but data is ", dtype_name(x.dtype));
    LATHE_CHECK(ctx.input(2).numel() == 1, "constant_value must hold one element");
  }
  Shape out = x.shape;
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = static_cast<size_t>(axes[i]);
    out[a] += pads[i] + pads[i + axes.size()];
    LATHE_CHECK(out[a] >= 0, "pads ", shape_to_string(pads), " crop dimension ", a, " of ",
                x.to_string(), " below zero");
    // Reflect and edge read input values, so they need a non-empty axis.
    if (mode != "constant" && out[a] > 0)
      LATHE_CHECK(x.shape[a] > 0, "mode '", mode, "' cannot pad an empty dimension");
  }
  ctx.set_output(0, {x.dtype, out});
}

void infer_expand(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  std::vector<int64_t> shape = const_ints(ctx, 1, "shape");
  // Expand broadcasts both ways: a 1 in `shape` keeps the input's dimension.
  ctx.set_output(0, {x.dtype, broadcast_shapes(x.shape, shape)});
}

void infer_tile(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  std::vector<int64_t> repeats = const_ints(ctx, 1, "repeats");
  LATHE_CHECK(static_cast<int>(repeats.size()) == x.rank(), "repeats ", shape_to_string(repeats),
              " does not match input rank ", x.rank());
  Shape out = x.shape;
  for (size_t d = 0; d < out.size(); ++d) {
    LATHE_CHECK(repeats[d] >= 0, "negative repeat in ", shape_to_string(repeats));
    out[d] = checked_mul(out[d], repeats[d], "a tiled extent");
  }
  ctx.set_output(0, {x.dtype, out});
}

void infer_range(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  check_same_dtype(ctx);
  DType t = ctx.input(0).dtype;
  for (size_t i = 0; i < 3; ++i)
    LATHE_CHECK(ctx.input(i).numel() == 1, "input ", i, " must be a scalar, got ",
                ctx.input(i).to_string());
  const Tensor& start = ctx.require_constant(0, "start");
  const Tensor& limit = ctx.require_constant(1, "limit");
  const Tensor& delta = ctx.require_constant(2, "delta");
  int64_t n = 0;
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      T s = start.data<T>()[0], l = limit.data<T>()[0], d = delta.data<T>()[0];
      LATHE_CHECK(d != T{0}, "delta is zero");
      if constexpr (std::is_floating_point_v<T>) {
        // ceil((limit - start) / delta): the difference in T, the division in
        // double, as onnxruntime and NumPy's arange do.
        double count = std::ceil(static_cast<double>(l - s) / static_cast<double>(d));
        LATHE_CHECK(std::isfinite(count), "start ", s, ", limit ", l, " and delta ", d,
                    " give no finite length");
        n = static_cast<int64_t>(std::max(count, 0.0));
      } else {
        // Exact integer ceil division, in int64 so unsigned types may count down.
        int64_t span = static_cast<int64_t>(l) - static_cast<int64_t>(s);
        int64_t step = static_cast<int64_t>(d);
        n = span / step + ((span % step != 0 && (span > 0) == (step > 0)) ? 1 : 0);
      }
    }
  });
  ctx.set_output(0, {t, {std::max<int64_t>(n, 0)}});
}

// GridSample: X [N, C, D1..Dk] sampled at grid [N, O1..Ok, k] gives
// [N, C, O1..Ok].
void infer_grid_sample(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const TensorType& grid = ctx.input(1);
  ctx.check_dtype(0, kFloatTypes);
  ctx.check_dtype(1, kFloatTypes);
  grid_sample_params(ctx.attrs());  // checks the modes
  LATHE_CHECK(x.rank() >= 3, "GridSample X must be [N, C, spatial...], got ", x.to_string());
  const int64_t k = x.rank() - 2;
  LATHE_CHECK(grid.rank() == x.rank() && grid.shape[0] == x.shape[0] && grid.shape.back() == k,
              "GridSample grid must be [", x.shape[0], ", out spatial..., ", k, "] for X ",
              x.to_string(), ", got ", grid.to_string());
  Shape out = {x.shape[0], x.shape[1]};
  out.insert(out.end(), grid.shape.begin() + 1, grid.shape.end() - 1);
  ctx.set_output(0, {x.dtype, out});
}

void infer_resize(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const Attributes& a = ctx.attrs();
  std::string mode = a.get_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    fail(str("unknown mode '", mode, "'"));
  if (a.has("axes")) fail_unsupported("the 'axes' attribute (opset 18) is not supported");
  if (mode != "nearest") ctx.check_dtype(0, kNumericTypes);
  Shape out(static_cast<size_t>(x.rank()));
  const Tensor* sizes_c = ctx.has_input(3) ? &ctx.require_constant(3, "sizes") : nullptr;
  if (sizes_c && sizes_c->numel() > 0) {
    std::vector<int64_t> sizes = sizes_c->to_int64_vector();
    LATHE_CHECK(static_cast<int>(sizes.size()) == x.rank(), "sizes ", shape_to_string(sizes),
                " does not match input rank ", x.rank());
    out = sizes;
  } else {
    LATHE_CHECK(ctx.has_input(2), "one of scales and sizes is required");
    const Tensor& scales_c = ctx.require_constant(2, "scales");
    LATHE_CHECK(is_float(scales_c.dtype()), "scales must be float");
    std::vector<double> scales = scales_c.to_double_vector();
    LATHE_CHECK(static_cast<int>(scales.size()) == x.rank(), "scales has ", scales.size(),
                " entries for input rank ", x.rank());
    for (size_t d = 0; d < scales.size(); ++d) {
      LATHE_CHECK(scales[d] > 0, "scale ", scales[d], " is not positive");
      // floor(input * scale), computed in double like the spec's reference.
      out[d] = static_cast<int64_t>(std::floor(static_cast<double>(x.shape[d]) * scales[d]));
    }
  }
  ctx.set_output(0, {x.dtype, out});
}

// DepthToSpace and SpaceToDepth share their checks on the NCHW layout.
void infer_depth_to_space(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  int64_t b = ctx.attrs().get_int("blocksize", 0);
  LATHE_CHECK(b > 0, "blocksize must be positive");
  LATHE_CHECK(x.rank() == 4, "input must be 4-D, got ", x.to_string());
  std::string mode = ctx.attrs().get_string("mode", "DCR");
  LATHE_CHECK(mode == "DCR" || mode == "CRD", "unknown mode '", mode, "'");
  LATHE_CHECK(x.shape[1] % (b * b) == 0, "channels of ", x.to_string(),
              " are not divisible by blocksize^2 = ", b * b);
  ctx.set_output(0, {x.dtype, {x.shape[0], x.shape[1] / (b * b), x.shape[2] * b, x.shape[3] * b}});
}

void infer_space_to_depth(InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  int64_t b = ctx.attrs().get_int("blocksize", 0);
  LATHE_CHECK(b > 0, "blocksize must be positive");
  LATHE_CHECK(x.rank() == 4, "input must be 4-D, got ", x.to_string());
  LATHE_CHECK(x.shape[2] % b == 0 && x.shape[3] % b == 0, "spatial dims of ", x.to_string(),
              " are not divisible by blocksize ", b);
  ctx.set_output(0, {x.dtype, {x.shape[0], x.shape[1] * b * b, x.shape[2] / b, x.shape[3] / b}});
}

}  // namespace

void register_shape_ops(OpRegistry& r) {
  using K = FusionKind;
  r.define("Identity", K::Injective, infer_identity);
  r.define("Dropout", K::Injective, infer_dropout).shape_inputs = {1, 2};
  r.define("Flatten", K::Injective, infer_flatten);
  r.define("Reshape", K::Injective, infer_reshape).shape_inputs = {1};
  r.define("Transpose", K::Injective, infer_transpose);
  r.define("Concat", K::Injective, infer_concat);
  r.define("Split", K::Injective, infer_split).shape_inputs = {1};
  r.define("Slice", K::Injective, infer_slice).shape_inputs = {1, 2, 3, 4};
  r.define("Gather", K::Injective, infer_gather);
  r.define("Squeeze", K::Injective, infer_squeeze).shape_inputs = {1};
  r.define("Unsqueeze", K::Injective, infer_unsqueeze).shape_inputs = {1};
  r.define("Pad", K::Injective, infer_pad).shape_inputs = {1, 3};
  r.define("Expand", K::Injective, infer_expand).shape_inputs = {1};
  r.define("Tile", K::Injective, infer_tile).shape_inputs = {1};
  r.define("Resize", K::Injective, infer_resize).shape_inputs = {1, 2, 3};
  r.define("GridSample", K::Injective, infer_grid_sample);
  r.define("DepthToSpace", K::Injective, infer_depth_to_space);
  r.define("SpaceToDepth", K::Injective, infer_space_to_depth);
  // Shape-valued ops: constant folding removes them from static-shape graphs.
  r.define("Shape", K::Opaque, infer_shape);
  r.define("Size", K::Opaque, infer_size);
  r.define("Constant", K::Opaque, infer_constant);
  r.define("ConstantOfShape", K::Opaque, infer_constant_of_shape).shape_inputs = {0};
  r.define("Range", K::Opaque, infer_range).shape_inputs = {0, 1, 2};
}

}  // namespace lathe
