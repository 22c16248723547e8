// Compute definitions of the nn op family (convolutions, pools,
// normalizations, Gemm/MatMul, softmax, PRelu, LRN) read from graph nodes, and
// the x86 schedules of the groups they anchor.
#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

#include "ir/ops/col2im_geometry.h"
#include "ir/ops/infer_util.h"
#include "ir/ops/window_geometry.h"
#include "support/error.h"
#include "topi/generic_template.h"
#include "topi/nn.h"
#include "topi/nn_schedule_x86.h"
#include "topi/op_compute.h"

namespace lathe::topi {
namespace {

using te::Expr;
using te::IterVar;
using te::Var;

std::vector<Expr> exprs(const std::vector<Var>& vars) {
  return std::vector<Expr>(vars.begin(), vars.end());
}

std::vector<std::string> axis_names(int rank) {
  std::vector<std::string> names;
  for (int d = 0; d < rank; ++d) names.push_back("i" + std::to_string(d));
  return names;
}

bool wants_output(const ComputeContext& ctx, size_t i) {
  return i < ctx.node().outputs.size() && ctx.node().outputs[i] != kNoValue;
}

// Indices into `t`, broadcast unidirectionally (right-aligned) to a tensor
// indexed by `i`: size-1 dimensions read index 0.
std::vector<Expr> broadcast_index(const te::Tensor& t, const std::vector<Var>& i) {
  std::vector<Expr> idx;
  const size_t offset = i.size() - static_cast<size_t>(t.ndim());
  for (int d = 0; d < t.ndim(); ++d)
    idx.push_back(t.shape()[d] == 1 ? te::make_int(0) : Expr(i[offset + d]));
  return idx;
}

// A 2-D sliding window resolved against the node's input and output extents:
// explicit pads, or SAME padding recovered from the output (as the reference).
struct Window2d {
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

Window2d resolve_window(const ComputeContext& ctx, int64_t in_h, int64_t in_w, int64_t out_h,
                        int64_t out_w, int64_t kernel_h, int64_t kernel_w) {
  for (const char* name : {"strides", "dilations"}) {
    if (const size_t n = ctx.attrs().get_ints(name).size(); n != 0 && n != 2)
      throw UnsupportedError(describe_node(ctx.node()) + ": '" + name + "' needs 2 values");
  }
  const SpatialWindow s =
      lathe::resolve_window(ctx.attrs(), {in_h, in_w}, {out_h, out_w}, {kernel_h, kernel_w});
  Window2d w;
  w.stride_h = s.strides[0];
  w.stride_w = s.strides[1];
  w.dilation_h = s.dilations[0];
  w.dilation_w = s.dilations[1];
  w.pad_top = s.pad_begin[0];
  w.pad_left = s.pad_begin[1];
  w.pad_bottom = s.pad_end[0];
  w.pad_right = s.pad_end[1];
  return w;
}

Conv2dParams conv_params(const Window2d& w, int64_t groups) {
  Conv2dParams p;
  p.stride_h = w.stride_h;
  p.stride_w = w.stride_w;
  p.dilation_h = w.dilation_h;
  p.dilation_w = w.dilation_w;
  p.pad_top = w.pad_top;
  p.pad_left = w.pad_left;
  p.pad_bottom = w.pad_bottom;
  p.pad_right = w.pad_right;
  p.groups = groups;
  return p;
}

// out + bias[index(i)], a stage the schedules inline into the group's output.
te::Tensor add_bias(const ComputeContext& ctx, const te::Tensor& out,
                    const std::function<std::vector<Expr>(const std::vector<Var>&)>& index) {
  if (!ctx.has_input(2)) return out;
  const te::Tensor& bias = ctx.input(2);
  return te::compute(
      out.shape(), [&](const std::vector<Var>& i) { return out(exprs(i)) + bias(index(i)); },
      ctx.name("bias"), axis_names(out.ndim()), "elemwise");
}

// Conv and the pools over 1 or 3 (any number but 2) spatial dimensions: the
// window of each spatial dimension resolved as resolve_window does for two,
// then one reduction stage over the padded input. Their tags are not the 2-D
// ones, so the x86 conv schedule leaves them to the default schedule.
struct WindowNd : SpatialWindow {
  Shape out;  // spatial extents
};

WindowNd resolve_window_nd(const ComputeContext& ctx, const Shape& x, const Shape& y,
                           const Shape& kernel) {
  if (kernel.size() != x.size() - 2)
    throw UnsupportedError(describe_node(ctx.node()) + ": the kernel needs " +
                           std::to_string(x.size() - 2) + " spatial dimensions");
  Shape out(y.begin() + 2, y.end());
  SpatialWindow resolved =
      lathe::resolve_window(ctx.attrs(), Shape(x.begin() + 2, x.end()), out, kernel);
  return WindowNd{std::move(resolved), std::move(out)};
}

// `x` padded with `value` so that every window (ceil-mode overhang included)
// lies inside: pad_begin before, as much as the windows need after.
te::Tensor pad_windows(const te::Tensor& x, const WindowNd& w, double value,
                       const std::string& name) {
  std::vector<int64_t> before = {0, 0}, after = {0, 0};
  for (size_t d = 0; d < w.kernel.size(); ++d) {
    const int64_t need = (w.out[d] - 1) * w.strides[d] + (w.kernel[d] - 1) * w.dilations[d] + 1;
    before.push_back(w.pad_begin[d]);
    after.push_back(std::max<int64_t>(0, need - w.pad_begin[d] - x.shape()[2 + d]));
  }
  return pad(x, before, after, value, name);
}

std::vector<IterVar> window_axes(const WindowNd& w) {
  std::vector<IterVar> axes;
  for (size_t d = 0; d < w.kernel.size(); ++d)
    axes.push_back(te::reduce_axis(w.kernel[d], "r" + std::to_string(d)));
  return axes;
}

// The padded spatial coordinates of output `i` at window taps `r`.
std::vector<Expr> window_point(const WindowNd& w, const std::vector<Var>& i,
                               const std::vector<IterVar>& r) {
  std::vector<Expr> at;
  for (size_t d = 0; d < w.kernel.size(); ++d)
    at.push_back(i[2 + d] * te::make_int(w.strides[d]) + r[d].var() * te::make_int(w.dilations[d]));
  return at;
}

std::vector<te::Tensor> conv_nd_compute(const ComputeContext& ctx) {
  const Shape& xs = ctx.input_type(0).shape;
  const Shape& ws = ctx.input_type(1).shape;
  const Shape& ys = ctx.output_type(0).shape;
  if (xs.size() < 3 || ws.size() != xs.size())
    throw UnsupportedError(describe_node(ctx.node()) + ": needs N x C x spatial data and kernel");
  WindowNd win = resolve_window_nd(ctx, xs, ys, std::vector<int64_t>(ws.begin() + 2, ws.end()));
  const int64_t groups = ctx.attrs().get_int("group", 1);
  const int64_t cg = ws[1], per_group = ws[0] / groups;
  te::Tensor padded = pad_windows(ctx.input(0), win, 0.0, ctx.name("pad"));
  const te::Tensor& weight = ctx.input(1);
  IterVar rc = te::reduce_axis(cg, "rc");
  std::vector<IterVar> taps = window_axes(win);
  std::vector<IterVar> all = {rc};
  all.insert(all.end(), taps.begin(), taps.end());
  te::Tensor out = te::compute(
      ys,
      [&](const std::vector<Var>& i) {
        Expr channel = groups == 1 ? Expr(rc.var())
                                   : (i[1] / te::make_int(per_group)) * te::make_int(cg) + rc.var();
        std::vector<Expr> at = {i[0], channel}, wt = {i[1], rc.var()};
        for (const Expr& e : window_point(win, i, taps)) at.push_back(e);
        for (const IterVar& r : taps) wt.push_back(r.var());
        return te::sum(padded(at) * weight(wt), all);
      },
      ctx.name(), axis_names(static_cast<int>(ys.size())), "conv_nd_nchw");
  return {add_bias(ctx, out, [](const std::vector<Var>& i) { return std::vector<Expr>{i[1]}; })};
}

// What MaxPool pads with: -inf, or the least value of an integer type (-inf
// itself does not convert to one).
double max_pad_value(te::DataType t) {
  if (t.is_float()) return -INFINITY;
  return t.is_int() ? -std::ldexp(1.0, t.bits - 1) : 0.0;
}

std::vector<te::Tensor> pool_nd_compute(const ComputeContext& ctx, PoolKind kind) {
  const Shape& xs = ctx.input_type(0).shape;
  const Shape& ys = ctx.output_type(0).shape;
  if (xs.size() < 3)
    throw UnsupportedError(describe_node(ctx.node()) + ": needs N x C x spatial data");
  WindowNd win = resolve_window_nd(ctx, xs, ys, ctx.attrs().get_ints("kernel_shape"));
  const te::Tensor& x = ctx.input(0);
  te::Tensor padded =
      pad_windows(x, win, kind == PoolKind::Max ? max_pad_value(x.dtype()) : 0.0, ctx.name("pad"));
  std::vector<IterVar> taps = window_axes(win);
  auto window = [&](const std::vector<Var>& i) {
    std::vector<Expr> at = {i[0], i[1]};
    for (const Expr& e : window_point(win, i, taps)) at.push_back(e);
    return padded(at);
  };
  const std::vector<std::string> names = axis_names(static_cast<int>(ys.size()));
  if (kind == PoolKind::Max)
    return {te::compute(
        ys, [&](const std::vector<Var>& i) { return te::max(window(i), taps); }, ctx.name(), names,
        "pool_nd_max")};
  te::Tensor total = te::compute(
      ys, [&](const std::vector<Var>& i) { return te::sum(window(i), taps); }, ctx.name("sum"),
      names, "pool_nd_sum");
  const bool include_pad = ctx.attrs().get_int("count_include_pad", 0) != 0;
  return {te::compute(
      ys,
      [&](const std::vector<Var>& i) {
        Expr count = te::make_int(1);
        for (size_t d = 0; d < win.kernel.size(); ++d) {
          const int64_t lo = include_pad ? -win.pad_begin[d] : 0;
          const int64_t hi = include_pad ? xs[2 + d] + win.pad_end[d] : xs[2 + d];
          count = count * window_tap_count(i[2 + d], win.strides[d], win.dilations[d],
                                           win.pad_begin[d], win.kernel[d], lo, hi);
        }
        return total(exprs(i)) / te::cast(x.dtype(), te::max(count, te::make_int(1)));
      },
      ctx.name(), names, "pool_nd_avg")};
}

// MaxPool's Indices, as the reference picks them: the first window tap (in
// row-major order, padding skipped) holding the maximum `values`, as a flat
// index into the input (row-major, or column-major within each plane for
// storage_order 1). Window taps run in row-major input order, so the first
// is the least row-major offset: a min reduction, then an elementwise stage
// that falls back to the window's first tap where none holds the maximum
// (NaN) and adds the plane's offset.
te::Tensor max_pool_indices(const ComputeContext& ctx, const te::Tensor& values) {
  const Shape& xs = ctx.input_type(0).shape;
  const Shape& ys = ctx.output_type(0).shape;
  const WindowNd win = resolve_window_nd(ctx, xs, ys, ctx.attrs().get_ints("kernel_shape"));
  const bool column_major = ctx.attrs().get_int("storage_order", 0) != 0;
  const size_t nd = win.kernel.size();
  const te::Tensor& x = ctx.input(0);
  const te::DataType i64 = te::DataType::Int(64);
  std::vector<int64_t> row(nd, 1), col(nd, 1);
  for (size_t d = nd - 1; d-- > 0;) row[d] = row[d + 1] * xs[3 + d];
  for (size_t d = 1; d < nd; ++d) col[d] = col[d - 1] * xs[1 + d];
  const int64_t plane = row[0] * xs[2];
  auto wide = [&](int64_t v) { return te::make_int(v, i64); };
  std::vector<IterVar> taps = window_axes(win);
  const std::vector<std::string> names = axis_names(static_cast<int>(ys.size()));
  te::Tensor first = te::compute(
      ys,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> at = {i[0], i[1]};
        Expr inside, offset = wide(0);
        for (size_t d = 0; d < nd; ++d) {
          Expr c = i[2 + d] * te::make_int(win.strides[d]) +
                   taps[d].var() * te::make_int(win.dilations[d]) - te::make_int(win.pad_begin[d]);
          Expr ok = c >= 0 && c < te::make_int(xs[2 + d]);
          inside = d == 0 ? ok : inside && ok;
          // Clamped, so that the read stays inside even where the tap does not.
          at.push_back(te::min(te::max(c, te::make_int(0)), te::make_int(xs[2 + d] - 1)));
          offset = offset + te::cast(i64, c) * wide(row[d]);
        }
        Expr hit = inside && x(at) == values(exprs(i));
        return te::min(te::select(hit, offset, wide(plane)), taps);
      },
      ctx.name("first"), names, "comm_reduce");
  return te::compute(
      ys,
      [&](const std::vector<Var>& i) {
        // The window's first tap inside the input (offset 0 for an empty window).
        Expr start = wide(0), nonempty;
        for (size_t d = 0; d < nd; ++d) {
          Expr base = i[2 + d] * te::make_int(win.strides[d]) - te::make_int(win.pad_begin[d]);
          Expr k =
              te::max((te::make_int(win.dilations[d] - 1) - base) / te::make_int(win.dilations[d]),
                      te::make_int(0));
          Expr c = base + k * te::make_int(win.dilations[d]);
          Expr ok = k < te::make_int(win.kernel[d]) && c < te::make_int(xs[2 + d]);
          nonempty = d == 0 ? ok : nonempty && ok;
          start = start + te::cast(i64, c) * wide(row[d]);
        }
        Expr found = first(exprs(i));
        Expr pos = te::select(found == wide(plane), te::select(nonempty, start, wide(0)), found);
        if (column_major) {
          Expr moved = wide(0);
          for (size_t d = 0; d < nd; ++d)
            moved = moved + ((pos / wide(row[d])) % wide(xs[2 + d])) * wide(col[d]);
          pos = moved;
        }
        Expr p = te::cast(i64, i[0]) * wide(xs[1]) + te::cast(i64, i[1]);
        return p * wide(plane) + pos;
      },
      ctx.name("indices"), names, "elemwise");
}

std::vector<te::Tensor> conv_compute(const ComputeContext& ctx) {
  if (ctx.input_type(0).rank() != 4) return conv_nd_compute(ctx);
  const Shape& x = ctx.input_type(0).shape;
  const Shape& w = ctx.input_type(1).shape;
  const Shape& y = ctx.output_type(0).shape;
  Window2d win = resolve_window(ctx, x[2], x[3], y[2], y[3], w[2], w[3]);
  te::Tensor out = conv2d_nchw(ctx.input(0), ctx.input(1),
                               conv_params(win, ctx.attrs().get_int("group", 1)), ctx.name());
  return {add_bias(ctx, out, [](const std::vector<Var>& i) { return std::vector<Expr>{i[1]}; })};
}

std::vector<te::Tensor> conv_nchwc_compute(const ComputeContext& ctx) {
  const Shape& x = ctx.input_type(0).shape;
  const Shape& w = ctx.input_type(1).shape;
  const Shape& y = ctx.output_type(0).shape;
  if (x.size() != 5 || w.size() != 6)
    throw UnsupportedError(describe_node(ctx.node()) + ": needs 5-D data and a 6-D kernel");
  Window2d win = resolve_window(ctx, x[2], x[3], y[2], y[3], w[2], w[3]);
  te::Tensor out = conv2d_nchwc(ctx.input(0), ctx.input(1),
                                conv_params(win, ctx.attrs().get_int("group", 1)), ctx.name());
  return {add_bias(ctx, out, [](const std::vector<Var>& i) {
    return std::vector<Expr>{i[1], i[4]};
  })};
}

// ConvTranspose as a gather over any number of spatial dimensions: output
// position o meets input position i through kernel tap k when
// o + pad - k*dilation = i*stride, so every output sums its taps under that
// divisibility condition.
std::vector<te::Tensor> conv_transpose_compute(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const te::Tensor& w = ctx.input(1);
  const Shape& xs = ctx.input_type(0).shape;
  const Shape& ws = ctx.input_type(1).shape;
  const Shape& ys = ctx.output_type(0).shape;
  if (xs.size() < 3 || ws.size() != xs.size())
    throw UnsupportedError(describe_node(ctx.node()) + ": needs N x C x spatial data and kernel");
  const size_t nd = xs.size() - 2;
  const Attributes& attrs = ctx.attrs();
  const int64_t group = attrs.get_int("group", 1);
  const int64_t cg = xs[1] / group, mg = ws[1];
  const std::vector<int64_t> s = spatial_ints(attrs, "strides", nd, 1),
                             d = spatial_ints(attrs, "dilations", nd, 1);
  const std::vector<int64_t> pad_begin =
      conv_transpose_pad_begin(attrs, xs, ys, Shape(ws.begin() + 2, ws.end()));
  const bool two_d = nd == 2;
  IterVar rc = te::reduce_axis(cg, "rc");
  std::vector<IterVar> taps;
  for (size_t k = 0; k < nd; ++k)
    taps.push_back(te::reduce_axis(
        ws[2 + k], two_d ? std::string(k == 0 ? "ry" : "rx") : "r" + std::to_string(k)));
  std::vector<IterVar> all = {rc};
  all.insert(all.end(), taps.begin(), taps.end());
  te::Tensor out = te::compute(
      ys,
      [&](const std::vector<Var>& i) {
        Expr channel = (i[1] / te::make_int(mg)) * te::make_int(cg) + rc.var();
        std::vector<Expr> at = {i[0], channel}, wt = {channel, i[1] % te::make_int(mg)};
        Expr hit;
        for (size_t k = 0; k < nd; ++k) {
          Expr t = i[2 + k] + te::make_int(pad_begin[k]) - taps[k].var() * te::make_int(d[k]);
          Expr c = t / te::make_int(s[k]);
          Expr ok = t % te::make_int(s[k]) == 0 && c >= 0 && c < te::make_int(xs[2 + k]);
          hit = k == 0 ? ok : hit && ok;
          at.push_back(c);
          wt.push_back(taps[k].var());
        }
        Expr value = te::select(hit, x(at), te::make_zero(x.dtype()));
        return te::sum(value * w(wt), all);
      },
      ctx.name(),
      two_d ? std::vector<std::string>{"n", "f", "y", "x"}
            : axis_names(static_cast<int>(ys.size())),
      two_d ? "conv2d_transpose_nchw" : "conv_transpose_nd_nchw");
  return {add_bias(ctx, out, [](const std::vector<Var>& i) { return std::vector<Expr>{i[1]}; })};
}

std::vector<te::Tensor> gemm_compute(const ComputeContext& ctx) {
  const Attributes& attrs = ctx.attrs();
  const bool trans_a = attrs.get_int("transA", 0) != 0;
  const bool trans_b = attrs.get_int("transB", 0) != 0;
  const double alpha = attrs.get_float("alpha", 1.0f), beta = attrs.get_float("beta", 1.0f);
  te::Tensor ab = batch_matmul(ctx.input(0), ctx.input(1), trans_a, trans_b, ctx.name());
  const bool with_c = ctx.has_input(2) && beta != 0.0;
  if (alpha == 1.0 && !with_c) return {ab};
  const te::DataType t = ab.dtype();
  return {te::compute(
      ab.shape(),
      [&](const std::vector<Var>& i) {
        Expr v = ab(exprs(i));
        if (alpha != 1.0) v = te::make_const(t, alpha) * v;
        if (with_c) {
          Expr c = ctx.input(2)(broadcast_index(ctx.input(2), i));
          v = v + (beta == 1.0 ? c : te::make_const(t, beta) * c);
        }
        return v;
      },
      ctx.name("scale"), {"i", "j"}, "elemwise")};
}

std::vector<te::Tensor> matmul_compute(const ComputeContext& ctx) {
  return {batch_matmul(ctx.input(0), ctx.input(1), false, false, ctx.name())};
}

// Whether a pool reads NCHW{b}c data (its `layout` attribute, which the
// layout pass sets; inference has checked the rest).
bool is_blocked_pool(const ComputeContext& ctx) {
  return ctx.attrs().get_string("layout", "NCHW") != "NCHW";
}

std::vector<te::Tensor> pool_compute(const ComputeContext& ctx, PoolKind kind) {
  // The values, then for MaxPool the Indices where the node has them.
  auto with_indices = [&](std::vector<te::Tensor> out) {
    if (kind == PoolKind::Max && ctx.num_outputs() > 1)
      out.push_back(wants_output(ctx, 1) ? max_pool_indices(ctx, out[0]) : te::Tensor());
    return out;
  };
  // Blocked data (the layout pass's: float, or a quantized max) is 2-D.
  const bool blocked = is_blocked_pool(ctx);
  if (blocked && !ctx.input(0).dtype().is_float() && kind != PoolKind::Max)
    throw UnsupportedError(describe_node(ctx.node()) +
                           ": blocked layouts take float data only, or a max of integers");
  if (!blocked &&
      (ctx.input_type(0).rank() != 4 || (kind == PoolKind::Max && ctx.input(0).dtype().is_int())))
    return with_indices(pool_nd_compute(ctx, kind));
  const Shape& x = ctx.input_type(0).shape;
  const Shape& y = ctx.output_type(0).shape;
  std::vector<int64_t> k = ctx.attrs().get_ints("kernel_shape");
  LATHE_CHECK(k.size() == 2, describe_node(ctx.node()), ": kernel_shape needs 2 values");
  Window2d win = resolve_window(ctx, x[2], x[3], y[2], y[3], k[0], k[1]);
  PoolWindow p;
  p.kernel_h = k[0];
  p.kernel_w = k[1];
  p.stride_h = win.stride_h;
  p.stride_w = win.stride_w;
  p.dilation_h = win.dilation_h;
  p.dilation_w = win.dilation_w;
  p.pad_top = win.pad_top;
  p.pad_left = win.pad_left;
  p.pad_bottom = win.pad_bottom;
  p.pad_right = win.pad_right;
  p.out_h = y[2];
  p.out_w = y[3];
  p.count_include_pad = ctx.attrs().get_int("count_include_pad", 0) != 0;
  return with_indices({pool2d_window(ctx.input(0), kind, p, ctx.name())});
}

std::vector<te::Tensor> max_pool_compute(const ComputeContext& ctx) {
  return pool_compute(ctx, PoolKind::Max);
}
std::vector<te::Tensor> average_pool_compute(const ComputeContext& ctx) {
  return pool_compute(ctx, PoolKind::Avg);
}
std::vector<te::Tensor> global_max_pool_compute(const ComputeContext& ctx) {
  return {global_pool(ctx.input(0), PoolKind::Max, ctx.name(), is_blocked_pool(ctx))};
}
std::vector<te::Tensor> global_average_pool_compute(const ComputeContext& ctx) {
  return {global_pool(ctx.input(0), PoolKind::Avg, ctx.name(), is_blocked_pool(ctx))};
}

std::vector<te::Tensor> batch_norm_compute(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const double epsilon = ctx.attrs().get_float("epsilon", 1e-5f);
  const te::DataType t = x.dtype();
  const te::Tensor &scale = ctx.input(1), &bias = ctx.input(2), &mean = ctx.input(3),
                   &var = ctx.input(4);
  // y = x * a + (bias - mean * a), a = scale / sqrt(var + epsilon), per channel.
  te::Tensor a = te::compute(
      {x.shape()[1]},
      [&](const std::vector<Var>& i) {
        return scale(i[0]) / te::sqrt(var(i[0]) + te::make_const(t, epsilon));
      },
      ctx.name("scale"), {"c"}, "elemwise");
  te::Tensor b = te::compute(
      {x.shape()[1]}, [&](const std::vector<Var>& i) { return bias(i[0]) - mean(i[0]) * a(i[0]); },
      ctx.name("shift"), {"c"}, "elemwise");
  te::Tensor y = te::compute(
      x.shape(), [&](const std::vector<Var>& i) { return x(exprs(i)) * a(i[1]) + b(i[1]); },
      ctx.name(), axis_names(x.ndim()), "batch_norm");
  std::vector<te::Tensor> out = {y};
  for (size_t k = 1; k < ctx.num_outputs(); ++k) {
    if (wants_output(ctx, k))
      throw UnsupportedError(describe_node(ctx.node()) + ": training outputs are not compiled");
    out.emplace_back();
  }
  return out;
}

// Mean and 1/sqrt(variance + epsilon) over the dimensions from `axis` on, as
// [d0, ..., d(axis-1), 1, ..., 1] stages (the shape of LayerNormalization's stats).
std::pair<te::Tensor, te::Tensor> moments(const ComputeContext& ctx, const te::Tensor& x, int axis,
                                          double epsilon) {
  const int r = x.ndim();
  std::vector<int64_t> stats = x.shape();
  std::vector<IterVar> axes;
  int64_t count = 1;
  for (int d = axis; d < r; ++d) {
    axes.push_back(te::reduce_axis(stats[d], "r" + std::to_string(d - axis)));
    count *= stats[d];
    stats[d] = 1;
  }
  const te::DataType t = x.dtype();
  auto point = [&](const std::vector<Var>& i) {
    std::vector<Expr> idx(i.begin(), i.begin() + axis);
    for (const IterVar& k : axes) idx.push_back(k.var());
    return idx;
  };
  te::Tensor sum = te::compute(
      stats, [&](const std::vector<Var>& i) { return te::sum(x(point(i)), axes); }, ctx.name("sum"),
      axis_names(r));
  te::Tensor mean = te::compute(
      stats,
      [&](const std::vector<Var>& i) {
        return sum(exprs(i)) * te::make_const(t, 1.0 / static_cast<double>(count));
      },
      ctx.name("mean"), axis_names(r));
  std::vector<IterVar> axes2;
  for (int d = axis; d < r; ++d)
    axes2.push_back(te::reduce_axis(x.shape()[d], "s" + std::to_string(d - axis)));
  te::Tensor sq = te::compute(
      stats,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx(i.begin(), i.begin() + axis);
        for (const IterVar& k : axes2) idx.push_back(k.var());
        Expr diff = x(idx) - mean(exprs(i));
        return te::sum(diff * diff, axes2);
      },
      ctx.name("sqsum"), axis_names(r));
  te::Tensor inv = te::compute(
      stats,
      [&](const std::vector<Var>& i) {
        return te::make_one(t) /
               te::sqrt(sq(exprs(i)) * te::make_const(t, 1.0 / static_cast<double>(count)) +
                        te::make_const(t, epsilon));
      },
      ctx.name("inv_std"), axis_names(r));
  return {mean, inv};
}

// The stats point of x's element i: the leading indices, 0 for the rest.
std::vector<Expr> stats_index(const std::vector<Var>& i, int axis) {
  std::vector<Expr> idx(i.begin(), i.begin() + axis);
  for (size_t d = static_cast<size_t>(axis); d < i.size(); ++d) idx.push_back(te::make_int(0));
  return idx;
}

std::vector<te::Tensor> instance_norm_compute(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const te::Tensor &scale = ctx.input(1), &bias = ctx.input(2);
  // Not a structured binding: the lambda below captures them, which clang
  // implements only from version 16.
  te::Tensor mean, inv;
  std::tie(mean, inv) = moments(ctx, x, 2, ctx.attrs().get_float("epsilon", 1e-5f));
  return {te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> s = stats_index(i, 2);
        return (x(exprs(i)) - mean(s)) * inv(s) * scale(i[1]) + bias(i[1]);
      },
      ctx.name(), axis_names(x.ndim()), "instance_norm")};
}

std::vector<te::Tensor> layer_norm_compute(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const int axis = normalize_axis(ctx.attrs().get_int("axis", -1), x.ndim());
  te::Tensor mean, inv;  // not a structured binding, as in instance_norm_compute
  std::tie(mean, inv) = moments(ctx, x, axis, ctx.attrs().get_float("epsilon", 1e-5f));
  te::Tensor y = te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> s = stats_index(i, axis);
        Expr v = (x(exprs(i)) - mean(s)) * inv(s) * ctx.input(1)(broadcast_index(ctx.input(1), i));
        if (ctx.has_input(2)) v = v + ctx.input(2)(broadcast_index(ctx.input(2), i));
        return v;
      },
      ctx.name(), axis_names(x.ndim()), "layer_norm");
  std::vector<te::Tensor> out = {y};
  te::Tensor stats[2] = {mean, inv};
  for (size_t k = 1; k < std::min<size_t>(ctx.num_outputs(), 3); ++k) {
    if (!wants_output(ctx, k)) {
      out.emplace_back();
      continue;
    }
    const te::DataType want = te_dtype(ctx.output_type(k).dtype);
    const te::Tensor& s = stats[k - 1];
    out.push_back(want == s.dtype()
                      ? s
                      : te::compute(
                            s.shape(),
                            [&](const std::vector<Var>& i) { return te::cast(want, s(exprs(i))); },
                            ctx.name(k == 1 ? "mean_out" : "inv_std_out"), axis_names(s.ndim())));
  }
  return out;
}

std::vector<te::Tensor> softmax_compute(const ComputeContext& ctx, bool log) {
  const te::Tensor& x = ctx.input(0);
  const int axis = normalize_axis(ctx.attrs().get_int("axis", -1), x.ndim());
  return {softmax(x, axis, log, ctx.name())};
}
std::vector<te::Tensor> softmax_op(const ComputeContext& ctx) {
  return softmax_compute(ctx, false);
}
std::vector<te::Tensor> log_softmax_op(const ComputeContext& ctx) {
  return softmax_compute(ctx, true);
}

std::vector<te::Tensor> prelu_compute(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const te::Tensor& slope = ctx.input(1);
  return {te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        Expr v = x(exprs(i));
        return te::select(v < te::make_zero(x.dtype()), slope(broadcast_index(slope, i)) * v, v);
      },
      ctx.name(), axis_names(x.ndim()), "elemwise")};
}

std::vector<te::Tensor> lrn_compute(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const Attributes& attrs = ctx.attrs();
  const int64_t size = attrs.get_int("size", 1);
  const double alpha = attrs.get_float("alpha", 1e-4f), beta = attrs.get_float("beta", 0.75f);
  const double bias = attrs.get_float("bias", 1.0f);
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  const te::DataType t = x.dtype();
  te::Tensor padded = pad(x, {0, before}, {0, after}, 0.0, ctx.name("pad"));
  IterVar k = te::reduce_axis(size, "k");
  te::Tensor sq = te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx = exprs(i);
        idx[1] = i[1] + k.var();
        Expr v = padded(idx);
        return te::sum(v * v, {k});
      },
      ctx.name("sqsum"), axis_names(x.ndim()));
  return {te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        Expr base = te::make_const(t, bias) +
                    te::make_const(t, alpha / static_cast<double>(size)) * sq(exprs(i));
        return x(exprs(i)) / te::pow(base, te::make_const(t, beta));
      },
      ctx.name(), axis_names(x.ndim()), "lrn")};
}

// Col2Im as a gather: image position p takes, for each block offset k, the
// column element of the block position (p + pad - k * dilation) / stride
// where that divides and lies inside; a sum over the block offsets.
std::vector<te::Tensor> col2im_compute(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const Shape& ys = ctx.output_type(0).shape;
  const Col2ImGeometry g =
      col2im_geometry(ctx.attrs(), ctx.require_constant(1, "image_shape").to_int64_vector(),
                      ctx.require_constant(2, "block_shape").to_int64_vector());
  const size_t n = g.image.size();
  std::vector<IterVar> taps;
  for (size_t d = 0; d < n; ++d)
    taps.push_back(te::reduce_axis(g.block[d], "k" + std::to_string(d)));
  return {te::compute(
      ys,
      [&](const std::vector<Var>& i) {
        Expr row = i[1], column = te::make_int(0), hit;
        for (size_t d = 0; d < n; ++d) {
          const Expr t = i[2 + d] + te::make_int(g.pad_begin[d]) -
                         taps[d].var() * te::make_int(g.dilations[d]);
          const Expr b = t / te::make_int(g.strides[d]);
          const Expr ok =
              t % te::make_int(g.strides[d]) == 0 && b >= 0 && b < te::make_int(g.blocks[d]);
          hit = d == 0 ? ok : hit && ok;
          const Expr inside = te::min(te::max(b, te::make_int(0)), te::make_int(g.blocks[d] - 1));
          row = row * te::make_int(g.block[d]) + taps[d].var();
          column = column * te::make_int(g.blocks[d]) + inside;
        }
        const std::vector<Expr> at = {i[0], row, column};
        return te::sum(te::select(hit, x(at), te::make_zero(x.dtype())), taps);
      },
      ctx.name(), axis_names(static_cast<int>(ys.size())), "col2im")};
}

}  // namespace

void register_nn_computes(OpStrategyRegistry& registry) {
  registry.define_compute("Conv", conv_compute);
  registry.define_template("Conv", conv2d_nchw_template);
  registry.define_compute("Conv2dNCHWc", conv_nchwc_compute);
  registry.define_template("Conv2dNCHWc", conv2d_nchwc_template);
  registry.define_compute("ConvTranspose", conv_transpose_compute);
  registry.define_compute("Gemm", gemm_compute);
  registry.define_template("Gemm", matmul_template);
  registry.define_compute("MatMul", matmul_compute);
  registry.define_template("MatMul", matmul_template);
  registry.define_compute("MaxPool", max_pool_compute);
  registry.define_template("MaxPool", generic_template);
  registry.define_compute("AveragePool", average_pool_compute);
  registry.define_template("AveragePool", generic_template);
  registry.define_compute("GlobalMaxPool", global_max_pool_compute);
  registry.define_template("GlobalMaxPool", generic_template);
  registry.define_compute("GlobalAveragePool", global_average_pool_compute);
  registry.define_template("GlobalAveragePool", generic_template);
  registry.define_compute("BatchNormalization", batch_norm_compute);
  registry.define_compute("InstanceNormalization", instance_norm_compute);
  registry.define_compute("LayerNormalization", layer_norm_compute);
  registry.define_compute("Softmax", softmax_op);
  registry.define_template("Softmax", generic_template);
  registry.define_compute("LogSoftmax", log_softmax_op);
  registry.define_template("LogSoftmax", generic_template);
  registry.define_compute("PRelu", prelu_compute);
  registry.define_compute("LRN", lrn_compute);
  registry.define_compute("Col2Im", col2im_compute);
  registry.define_template("Col2Im", generic_template);
}

}  // namespace lathe::topi
