// Compute definitions of the shape and data-movement ops: each output element
// reads one input element at an index computed from its own (reshapes,
// transposes, slices, concatenation, gathers, padding, tiling, resizing),
// and the shape-valued ops become compile-time tables.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "ir/ops/grid_sample_geometry.h"
#include "ir/ops/resize_geometry.h"
#include "topi/compute_util.h"

namespace lathe::topi {
namespace {

using detail::as_exprs;
using te::DataType;
using te::Expr;
using te::Var;

const DataType kI64 = DataType::Int(64);

// One stage of the output shape whose element at `index` is `read(index)`.
te::Tensor injective(const ComputeContext& ctx, size_t output,
                     const std::function<Expr(const std::vector<Expr>&)>& read,
                     const std::string& suffix = "") {
  return te::compute(
      detail::out_shape(ctx, output), [&](const std::vector<Var>& i) { return read(as_exprs(i)); },
      ctx.name(suffix), {}, "injective");
}

// The values of a constant tensor as a stage: a table on the linear position.
te::Tensor constant_tensor(const ComputeContext& ctx, const lathe::Tensor& value) {
  DataType t = detail::out_dtype(ctx);
  const std::vector<int64_t> shape = detail::out_shape(ctx);
  LATHE_CHECK(shape_numel(shape) == value.numel(), describe_node(ctx.node()), ": value ",
              value.type().to_string(), " does not fill the output");
  return injective(ctx, 0, [&](const std::vector<Expr>& i) {
    Expr flat = detail::flat_index(shape, i);
    if (value.numel() == 1) return detail::constant_element(value, 0, t);
    if (t.is_float()) return detail::float_table_lookup(value.to_double_vector(), flat, t);
    std::vector<int64_t> ints;
    for (int64_t k = 0; k < value.numel(); ++k)
      ints.push_back(*te::as_const_int(detail::constant_element(value, k, kI64)));
    return te::cast(t, detail::table_lookup(ints, flat));
  });
}

std::vector<te::Tensor> identity(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) { return x(i); })};
}

std::vector<te::Tensor> dropout(const ComputeContext& ctx) {
  if (ctx.node().has_input(2)) {
    const lathe::Tensor& training = ctx.require_constant(2, "training_mode");
    const lathe::Tensor* ratio = ctx.constant(1);
    if (ctx.node().has_input(1) && !ratio)
      throw UnsupportedError(describe_node(ctx.node()) + ": ratio must be a compile-time constant");
    // Training-mode dropout with a non-zero ratio is random.
    if (training.numel() > 0 && training.element_as_double(0) != 0 &&
        (!ratio || ratio->element_as_double(0) != 0))
      throw UnsupportedError(describe_node(ctx.node()) +
                             ": Dropout in training mode (random) is not supported");
  }
  std::vector<te::Tensor> out = identity(ctx);
  if (ctx.num_outputs() > 1 && ctx.node().outputs[1] != kNoValue)
    out.push_back(injective(
        ctx, 1, [](const std::vector<Expr>&) { return te::make_one(DataType::Bool()); }, "mask"));
  return out;
}

// Reshape, Flatten, Squeeze, Unsqueeze: the same elements in the same order.
std::vector<te::Tensor> reshape(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const std::vector<int64_t> shape = detail::out_shape(ctx);
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    return x(detail::reshape_index(x.shape(), shape, i));
  })};
}

std::vector<te::Tensor> transpose(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const int rank = x.ndim();
  std::vector<int64_t> perm = ctx.attrs().get_ints("perm");
  if (!ctx.attrs().has("perm"))
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    // Output dimension j is input dimension perm[j].
    std::vector<Expr> index(static_cast<size_t>(rank));
    for (size_t j = 0; j < perm.size(); ++j)
      index[static_cast<size_t>(normalize_axis(perm[j], rank))] = i[j];
    return x(index);
  })};
}

std::vector<te::Tensor> concat(const ComputeContext& ctx) {
  const std::vector<int64_t> shape = detail::out_shape(ctx);
  const size_t axis =
      static_cast<size_t>(normalize_axis(ctx.attrs().get_int("axis", 0), int(shape.size())));
  struct Part {
    te::Tensor tensor;
    int64_t begin;
  };
  std::vector<Part> parts;
  int64_t begin = 0;
  for (size_t k = 0; k < ctx.num_inputs(); ++k) {
    const te::Tensor& t = ctx.input(k);
    if (t.shape()[axis] > 0) parts.push_back({t, begin});
    begin += t.shape()[axis];
  }
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    // The part an element reads is chosen by a balanced tree of comparisons
    // of its index with the parts' starts: log2(parts) of them per element
    // where a chain takes up to one per part (the code generator branches on
    // each, the condition being the same in every lane). A DenseNet layer's
    // concat has up to 48 parts, an unrolled LSTM's output 100.
    std::function<Expr(size_t, size_t)> tree = [&](size_t lo, size_t hi) {
      if (hi - lo == 1) {
        std::vector<Expr> index = i;
        index[axis] = i[axis] - te::make_int(parts[lo].begin);
        return parts[lo].tensor(index);
      }
      const size_t mid = lo + (hi - lo) / 2;
      return te::select(i[axis] < te::make_int(parts[mid].begin), tree(lo, mid), tree(mid, hi));
    };
    return tree(0, parts.size());
  })};
}

std::vector<te::Tensor> split(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const size_t axis = static_cast<size_t>(normalize_axis(ctx.attrs().get_int("axis", 0), x.ndim()));
  std::vector<te::Tensor> outputs;
  int64_t begin = 0;
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    outputs.push_back(injective(
        ctx, k,
        [&](const std::vector<Expr>& i) {
          std::vector<Expr> index = i;
          index[axis] = i[axis] + te::make_int(begin);
          return x(index);
        },
        std::to_string(k)));
    begin += ctx.output_type(k).shape[axis];
  }
  return outputs;
}

std::vector<te::Tensor> slice(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  std::vector<int64_t> starts = detail::constant_ints(ctx, 1, "starts");
  std::vector<int64_t> axes, steps(starts.size(), 1);
  if (ctx.node().has_input(3)) {
    axes = detail::constant_ints(ctx, 3, "axes");
  } else {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  if (ctx.node().has_input(4)) steps = detail::constant_ints(ctx, 4, "steps");
  std::vector<int64_t> first(static_cast<size_t>(x.ndim()), 0), step(first.size(), 1);
  for (size_t k = 0; k < starts.size(); ++k) {
    size_t a = static_cast<size_t>(normalize_axis(axes[k], x.ndim()));
    int64_t dim = x.shape()[a], s = starts[k];
    // ONNX Slice clamping, as core/ir/ops/shape.cpp.
    if (s < 0) s += dim;
    s = steps[k] > 0 ? std::clamp<int64_t>(s, 0, dim)
                     : (dim == 0 ? 0 : std::clamp<int64_t>(s, 0, dim - 1));
    first[a] = s;
    step[a] = steps[k];
  }
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    std::vector<Expr> index;
    for (size_t d = 0; d < i.size(); ++d)
      index.push_back(i[d] * te::make_int(step[d], kI64) + te::make_int(first[d], kI64));
    return x(index);
  })};
}

// An index read from an index tensor, negative counting from the back and
// clamped into [0, n) so that a bad index cannot read outside the tensor.
Expr wrap_index(const Expr& k, int64_t n) {
  Expr v = te::cast(kI64, k);
  Expr wrapped = te::select(v < te::make_int(0, kI64), v + te::make_int(n, kI64), v);
  return te::min(te::max(wrapped, te::make_int(0, kI64)),
                 te::make_int(std::max<int64_t>(n - 1, 0), kI64));
}

std::vector<te::Tensor> gather(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  te::Tensor indices = ctx.input(1);
  const size_t axis = static_cast<size_t>(normalize_axis(ctx.attrs().get_int("axis", 0), x.ndim()));
  const size_t q = static_cast<size_t>(indices.ndim());
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    std::vector<Expr> index(i.begin(), i.begin() + static_cast<long>(axis));
    std::vector<Expr> at(i.begin() + static_cast<long>(axis),
                         i.begin() + static_cast<long>(axis + q));
    index.push_back(wrap_index(indices(at), x.shape()[axis]));
    index.insert(index.end(), i.begin() + static_cast<long>(axis + q), i.end());
    return x(index);
  })};
}

// Source index of output position `i` (already shifted by the leading pad)
// along an axis of size n, as reference::pad_source: -1 never happens here;
// the constant mode checks the range itself.
Expr pad_source(const std::string& mode, const Expr& i, int64_t n) {
  Expr zero = te::make_int(0, kI64);
  if (mode == "edge") return te::min(te::max(i, zero), te::make_int(n - 1, kI64));
  if (mode == "wrap") return i % te::make_int(n, kI64);
  // reflect: a triangle wave of period 2(n-1), as NumPy's pad.
  if (n == 1) return zero;
  const int64_t period = 2 * (n - 1);
  Expr m = i % te::make_int(period, kI64);
  return te::select(m < te::make_int(n, kI64), m, te::make_int(period, kI64) - m);
}

std::vector<te::Tensor> pad(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const std::string mode = ctx.attrs().get_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    throw UnsupportedError(describe_node(ctx.node()) + ": mode '" + mode + "' is not supported");
  std::vector<int64_t> pads = detail::constant_ints(ctx, 1, "pads");
  std::vector<int64_t> axes;
  if (ctx.node().has_input(3)) {
    axes = detail::constant_ints(ctx, 3, "axes");
  } else {
    for (int d = 0; d < x.ndim(); ++d) axes.push_back(d);
  }
  std::vector<int64_t> begin(static_cast<size_t>(x.ndim()), 0);
  for (size_t k = 0; k < axes.size(); ++k)
    begin[static_cast<size_t>(normalize_axis(axes[k], x.ndim()))] = pads[k];
  DataType t = detail::out_dtype(ctx);
  Expr fill = detail::scalar_operand(ctx, 2, t);
  if (!fill.defined()) fill = te::make_zero(t);
  const bool empty = shape_numel(x.shape()) == 0;
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    if (empty) return fill;  // nothing to read: the output is all padding
    std::vector<Expr> index;
    Expr inside;
    for (size_t d = 0; d < i.size(); ++d) {
      Expr s = te::cast(kI64, i[d]) - te::make_int(begin[d], kI64);
      const int64_t n = x.shape()[d];
      if (mode == "constant") {
        if (begin[d] != 0 || detail::out_shape(ctx)[d] != n) {
          Expr ok = s >= te::make_int(0, kI64) && s < te::make_int(n, kI64);
          inside = inside.defined() ? inside && ok : ok;
        }
        index.push_back(s);
      } else {
        index.push_back(begin[d] == 0 && detail::out_shape(ctx)[d] == n ? s
                                                                        : pad_source(mode, s, n));
      }
    }
    return inside.defined() ? te::select(inside, x(index), fill) : x(index);
  })};
}

std::vector<te::Tensor> expand(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  return {
      injective(ctx, 0, [&](const std::vector<Expr>& i) { return detail::broadcast_read(x, i); })};
}

std::vector<te::Tensor> tile(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    std::vector<Expr> index;
    for (size_t d = 0; d < i.size(); ++d) {
      const int64_t n = x.shape()[d];
      index.push_back(n == detail::out_shape(ctx)[d] ? i[d] : i[d] % te::make_int(n));
    }
    return x(index);
  })};
}

std::vector<te::Tensor> depth_to_space(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const int64_t b = ctx.attrs().get_int("blocksize", 0);
  const bool crd = ctx.attrs().get_string("mode", "DCR") == "CRD";
  const int64_t c_out = detail::out_shape(ctx)[1];
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    Expr bi = i[2] % te::make_int(b), bj = i[3] % te::make_int(b);
    Expr h = i[2] / te::make_int(b), w = i[3] / te::make_int(b);
    Expr channel = crd ? i[1] * te::make_int(b * b) + bi * te::make_int(b) + bj
                       : (bi * te::make_int(b) + bj) * te::make_int(c_out) + i[1];
    return x(i[0], channel, h, w);
  })};
}

std::vector<te::Tensor> space_to_depth(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const int64_t b = ctx.attrs().get_int("blocksize", 0);
  const int64_t c = x.shape()[1];
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    // Output channel (bi*b + bj)*C + c takes input [c, h*b + bi, w*b + bj].
    Expr bi = i[1] / te::make_int(b * c), bj = (i[1] / te::make_int(c)) % te::make_int(b);
    Expr channel = i[1] % te::make_int(c);
    return x(i[0], channel, i[2] * te::make_int(b) + bi, i[3] * te::make_int(b) + bj);
  })};
}

std::vector<te::Tensor> shape_op(const ComputeContext& ctx) {
  const std::vector<int64_t>& s = ctx.input_type(0).shape;
  const int rank = static_cast<int>(s.size());
  int64_t start = ctx.attrs().get_int("start", 0);
  if (start < 0) start += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  const int64_t n = shape_numel(detail::out_shape(ctx));
  std::vector<int64_t> dims(s.begin() + start, s.begin() + start + n);
  return {constant_tensor(ctx, lathe::Tensor::from_vector(dims, {n}))};
}

std::vector<te::Tensor> size_op(const ComputeContext& ctx) {
  return {constant_tensor(ctx, lathe::Tensor::scalar<int64_t>(ctx.input_type(0).numel()))};
}

std::vector<te::Tensor> constant_op(const ComputeContext& ctx) {
  const Attributes& a = ctx.attrs();
  if (a.has("value")) return {constant_tensor(ctx, a.get_tensor("value"))};
  if (a.has("value_float"))
    return {constant_tensor(ctx, lathe::Tensor::scalar<float>(a.get_float("value_float", 0)))};
  if (a.has("value_int"))
    return {constant_tensor(ctx, lathe::Tensor::scalar<int64_t>(a.get_int("value_int", 0)))};
  if (a.has("value_floats")) {
    std::vector<float> v = a.get_floats("value_floats");
    return {constant_tensor(ctx, lathe::Tensor::from_vector(v, {int64_t(v.size())}))};
  }
  if (a.has("value_ints")) {
    std::vector<int64_t> v = a.get_ints("value_ints");
    return {constant_tensor(ctx, lathe::Tensor::from_vector(v, {int64_t(v.size())}))};
  }
  throw UnsupportedError(describe_node(ctx.node()) + ": no supported value attribute");
}

std::vector<te::Tensor> constant_of_shape(const ComputeContext& ctx) {
  DataType t = detail::out_dtype(ctx);
  Expr value = ctx.attrs().has("value")
                   ? detail::constant_element(ctx.attrs().get_tensor("value"), 0, t)
                   : te::make_zero(t);
  return {injective(ctx, 0, [&](const std::vector<Expr>&) { return value; })};
}

// start + i * delta in the output type, as the reference's loop.
std::vector<te::Tensor> range(const ComputeContext& ctx) {
  DataType t = detail::out_dtype(ctx);
  Expr start = detail::constant_element(ctx.require_constant(0, "start"), 0, t);
  Expr delta = detail::constant_element(ctx.require_constant(2, "delta"), 0, t);
  return {injective(ctx, 0,
                    [&](const std::vector<Expr>& i) { return start + te::cast(t, i[0]) * delta; })};
}

// ---- Resize ----------------------------------------------------------------
// As the reference kernel (after the ONNX reference implementation): each
// axis maps an output coordinate to taps (input index, weight); the output
// is the weighted sum over the product of every axis' taps, accumulated in
// double in the same nesting. The taps depend only on shapes and attributes,
// so they are computed here and enter the kernel as tables.

using Tap = ResizeTap;

struct AxisTables {
  bool identity = true;  // output coordinate o reads input o with weight 1
  // A linear axis whose tables have no compact form (a scale that is no
  // small ratio: align_corners from 96 to 384 maps o to o * 95 / 383) takes
  // its two taps from the source coordinate a + b * o computed in the kernel:
  // floor, the fraction as the right tap's weight, indices clamped.
  bool affine = false;
  double a = 0, b = 0;
  std::vector<std::vector<int64_t>> index;  // [tap][o]
  std::vector<std::vector<double>> weight;  // [tap][o]
  std::vector<int64_t> outside;             // [o]: 1 for extrapolation
  bool any_outside = false;
};

std::vector<te::Tensor> resize(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  const ResizeParams p = resize_params(ctx.attrs());
  const double extrapolation = p.extrapolation;
  const std::vector<int64_t> out = detail::out_shape(ctx);
  const size_t rank = out.size();
  DataType t = detail::out_dtype(ctx);
  if (shape_numel(out) == 0 || shape_numel(x.shape()) == 0)
    throw UnsupportedError(describe_node(ctx.node()) + ": resizing an empty tensor");

  const lathe::Tensor* sizes = ctx.node().has_input(3) ? ctx.constant(3) : nullptr;
  const bool by_sizes = sizes && sizes->numel() > 0;
  std::vector<double> scales;
  if (!by_sizes) scales = ctx.require_constant(2, "scales").to_double_vector();
  std::vector<double> roi;
  if (p.transform == "tf_crop_and_resize") roi = ctx.require_constant(1, "roi").to_double_vector();

  std::vector<AxisTables> axes(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in_n = x.shape()[d], out_n = out[d];
    const double scale = resize_axis_scale(p, d, scales, in_n, out_n);
    double r0 = roi.empty() ? 0 : roi[d], r1 = roi.empty() ? 1 : roi[d + rank];
    AxisTables& ax = axes[d];
    for (int64_t o = 0; o < out_n; ++o) {
      bool outside = false;
      double c = 0;
      std::vector<Tap> taps;
      try {
        c = resize_source_coord(p, o, scale, in_n, r0, r1, outside);
        // Every output coordinate gets the same number of taps, so one
        // expression serves them all.
        taps = resize_taps(p, c, scale, in_n, ZeroWeightTaps::Keep);
      } catch (const UnsupportedError& e) {
        throw UnsupportedError(describe_node(ctx.node()) + ": " + e.what());
      }
      ax.index.resize(taps.size());
      ax.weight.resize(taps.size());
      for (size_t k = 0; k < taps.size(); ++k) {
        ax.index[k].push_back(taps[k].index);
        ax.weight[k].push_back(taps[k].weight);
      }
      ax.outside.push_back(outside);
      ax.any_outside = ax.any_outside || outside;
      // One tap of weight 1 at o (or zero-weight taps besides it) copies.
      bool copies = !outside;
      for (size_t k = 0; k < taps.size(); ++k)
        copies = copies && (taps[k].weight == 0 || (taps[k].weight == 1 && taps[k].index == o));
      ax.identity = ax.identity && copies && in_n == out_n;
    }
    if (!ax.identity && p.mode == "linear" && !p.antialias && !p.exclude_outside &&
        !ax.any_outside && resize_affine_coord(p, scale, in_n, ax.a, ax.b)) {
      bool compact = true;
      for (size_t k = 0; k < ax.index.size(); ++k)
        compact = compact && detail::compact_table(ax.index[k]) &&
                  detail::compact_float_table(ax.weight[k]);
      ax.affine = !compact;
    }
  }
  const bool nearest = p.mode == "nearest";
  // Float32 data interpolates in float32, as TVM's resize does: within an
  // ulp or two of the reference's double sums, and half the vector width.
  const DataType acc_t = t == DataType::Float(32) && x.dtype() == DataType::Float(32)
                             ? DataType::Float(32)
                             : DataType::Float(64);
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    // Per axis: the taps' index and weight expressions.
    std::vector<std::vector<std::pair<Expr, Expr>>> taps(rank);
    Expr outside;
    for (size_t d = 0; d < rank; ++d) {
      const AxisTables& ax = axes[d];
      if (ax.identity) {
        taps[d].push_back({i[d], Expr()});
        continue;
      }
      if (ax.affine) {
        // As resize_taps: {floor(c): 1 - r, floor(c) + 1: r}, clamped.
        const Expr c =
            te::make_const(acc_t, ax.a) + te::make_const(acc_t, ax.b) * te::cast(acc_t, i[d]);
        const Expr left = te::floor(c);
        const Expr r = c - left;
        const Expr x0 = te::cast(kI64, left);
        const Expr first = te::make_int(0, kI64), last = te::make_int(x.shape()[d] - 1, kI64);
        auto clamped = [&](const Expr& at) { return te::min(te::max(at, first), last); };
        taps[d].push_back({clamped(x0), te::make_const(acc_t, 1.0) - r});
        taps[d].push_back({clamped(x0 + te::make_int(1, kI64)), r});
        continue;
      }
      for (size_t k = 0; k < ax.index.size(); ++k) {
        Expr w = nearest ? Expr() : detail::float_table_lookup(ax.weight[k], i[d], acc_t);
        taps[d].push_back({detail::table_lookup(ax.index[k], i[d]), w});
      }
      if (ax.any_outside) {
        Expr o = detail::table_lookup(ax.outside, i[d]) != te::make_int(0, kI64);
        outside = outside.defined() ? outside || o : o;
      }
    }
    Expr value;
    if (nearest) {
      std::vector<Expr> index;
      for (size_t d = 0; d < rank; ++d) index.push_back(taps[d][0].first);
      value = x(index);
    } else {
      // sum_t w_t * acc(d + 1), as the reference's recursion.
      std::vector<Expr> index(rank);
      std::function<Expr(size_t)> acc = [&](size_t d) -> Expr {
        if (d == rank) return te::cast(acc_t, x(index));
        Expr sum;
        for (const auto& [at, w] : taps[d]) {
          index[d] = at;
          Expr term = w.defined() ? w * acc(d + 1) : acc(d + 1);
          sum = sum.defined() ? sum + term : term;
        }
        return sum;
      };
      Expr v = acc(0);
      if (t.is_float()) {
        value = te::cast(t, v);
      } else {
        // Round half away from zero, clamp to the type, convert.
        DataType f64 = DataType::Float(64);
        Expr half = te::make_const(f64, 0.5);
        Expr rounded = te::select(v < te::make_zero(f64), te::make_zero(f64) - te::floor(half - v),
                                  te::floor(v + half));
        value = detail::from_double(rounded, t);
      }
    }
    if (outside.defined()) value = te::select(outside, te::make_const(t, extrapolation), value);
    return value;
  })};
}

// GridSample: the reference kernel's steps (ir/ops/grid_sample_geometry.h)
// as expressions over the grid's values, in float32 for float32 data.
std::vector<te::Tensor> grid_sample(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const te::Tensor& grid = ctx.input(1);
  const GridSampleParams p = grid_sample_params(ctx.attrs());
  const Shape& xs = ctx.input_type(0).shape;
  const size_t k = xs.size() - 2;
  const DataType f = x.dtype() == DataType::Float(32) && grid.dtype() == DataType::Float(32)
                         ? DataType::Float(32)
                         : DataType::Float(64);
  auto num = [&](double v) { return te::make_const(f, v); };
  auto idx = [](int64_t v) { return te::make_int(v, kI64); };
  const double lo = grid_low(p.align_corners);
  // grid_reflect: parity of the whole turns picks the end measured from.
  auto reflect = [&](const Expr& c, double hi) -> Expr {
    const double range = hi - lo;
    if (range <= 0) return num(lo);
    auto turns_even = [&](const Expr& dx, Expr& r) {
      const Expr turns = te::floor(dx / num(range));
      r = dx - turns * num(range);
      return te::cast(kI64, turns) % idx(2) == idx(0);
    };
    Expr r_below, r_above;
    const Expr below_even = turns_even(num(lo) - c, r_below);
    const Expr above_even = turns_even(c - num(hi), r_above);
    const Expr below = te::select(below_even, num(lo) + r_below, num(hi) - r_below);
    const Expr above = te::select(above_even, num(hi) - r_above, num(lo) + r_above);
    return te::select(c < num(lo), below, te::select(c > num(hi), above, c));
  };
  return {injective(ctx, 0, [&](const std::vector<Expr>& i) {
    struct Tap {
      Expr index, weight, inside;  // weight undefined: 1; inside undefined: always
    };
    std::vector<std::vector<Tap>> taps(k);
    for (size_t d = 0; d < k; ++d) {
      const int64_t size = xs[2 + d];
      const double hi = grid_high(size, p.align_corners);
      std::vector<Expr> at = {i[0]};
      for (size_t j = 0; j < k; ++j) at.push_back(i[2 + j]);
      at.push_back(idx(static_cast<int64_t>(k - 1 - d)));
      const Expr g = te::cast(f, grid(at));
      Expr c = p.align_corners
                   ? (g + num(1)) * num(0.5 * static_cast<double>(size - 1))
                   : ((g + num(1)) * num(static_cast<double>(size)) - num(1)) * num(0.5);
      if (p.mode == GridMode::Nearest)
        c = k == 3
                ? te::select(c < num(0), num(0) - te::floor(num(0.5) - c), te::floor(c + num(0.5)))
                : te::round(c);
      auto clamp = [&](const Expr& e) { return te::min(te::max(e, idx(0)), idx(size - 1)); };
      auto add = [&](const Expr& at_index, Expr weight) {
        Tap tap{clamp(at_index), std::move(weight), Expr()};
        if (p.padding == GridPadding::Reflection)
          tap.index = clamp(te::cast(kI64, reflect(te::cast(f, at_index), hi)));
        else if (p.padding == GridPadding::Zeros)
          tap.inside = at_index >= idx(0) && at_index < idx(size);
        taps[d].push_back(std::move(tap));
      };
      const Expr x0 = te::floor(c), t = c - x0, i0 = te::cast(kI64, x0);
      if (p.mode == GridMode::Nearest) {
        add(te::cast(kI64, c), Expr());
      } else if (p.mode == GridMode::Linear) {
        add(i0, num(1) - t);
        add(i0 + idx(1), t);
      } else {
        constexpr double a = -0.75;
        auto near = [&](const Expr& u) { return (num(a + 2) * u - num(a + 3)) * u * u + num(1); };
        auto far = [&](const Expr& u) {
          return ((num(a) * u - num(5 * a)) * u + num(8 * a)) * u - num(4 * a);
        };
        add(i0 - idx(1), far(t + num(1)));
        add(i0, near(t));
        add(i0 + idx(1), near(num(1) - t));
        add(i0 + idx(2), far(num(2) - t));
      }
    }
    // sum over every combination of taps of weight * (inside ? x : 0).
    std::vector<Expr> at = {i[0], i[1]};
    at.resize(2 + k);
    std::function<Expr(size_t, Expr)> acc = [&](size_t d, Expr inside) -> Expr {
      if (d == k) {
        const Expr v = te::cast(f, x(at));
        return inside.defined() ? te::select(inside, v, num(0)) : v;
      }
      Expr sum;
      for (const Tap& tap : taps[d]) {
        at[2 + d] = tap.index;
        Expr in = !tap.inside.defined() ? inside
                  : inside.defined()    ? inside && tap.inside
                                        : tap.inside;
        Expr term = acc(d + 1, in);
        if (tap.weight.defined()) term = tap.weight * term;
        sum = sum.defined() ? sum + term : term;
      }
      return sum;
    };
    return te::cast(x.dtype(), acc(0, Expr()));
  })};
}

}  // namespace

void register_shape_computes(OpStrategyRegistry& r) {
  r.define_compute("Identity", identity);
  r.define_compute("Dropout", dropout);
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"})
    r.define_compute(op, reshape);
  r.define_compute("Transpose", transpose);
  r.define_compute("Concat", concat);
  r.define_compute("Split", split);
  r.define_compute("Slice", slice);
  r.define_compute("Gather", gather);
  r.define_compute("Pad", pad);
  r.define_compute("Expand", expand);
  r.define_compute("Tile", tile);
  r.define_compute("Resize", resize);
  r.define_compute("GridSample", grid_sample);
  r.define_compute("DepthToSpace", depth_to_space);
  r.define_compute("SpaceToDepth", space_to_depth);
  r.define_compute("Shape", shape_op);
  r.define_compute("Size", size_op);
  r.define_compute("Constant", constant_op);
  r.define_compute("ConstantOfShape", constant_of_shape);
  r.define_compute("Range", range);
}

}  // namespace lathe::topi
