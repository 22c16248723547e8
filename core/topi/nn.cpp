#include "topi/nn.h"

#include <limits>

#include "support/error.h"

namespace lathe::topi {

using te::Expr;
using te::IterVar;
using te::Var;

Tensor matmul(const Tensor& a, const Tensor& b, const std::string& name) {
  LATHE_CHECK(a.ndim() == 2 && b.ndim() == 2 && a.shape()[1] == b.shape()[0],
              "matmul: shapes do not match");
  IterVar k = te::reduce_axis(a.shape()[1], "k");
  return te::compute(
      {a.shape()[0], b.shape()[1]},
      [&](const std::vector<Var>& i) { return te::sum(a(i[0], k.var()) * b(k.var(), i[1]), {k}); },
      name, {"i", "j"}, "matmul");
}

Tensor pad2d(const Tensor& x, int64_t top, int64_t left, int64_t bottom, int64_t right,
             double value, const std::string& name) {
  std::vector<int64_t> shape = x.shape();
  int r = x.ndim();
  LATHE_CHECK(r >= 2, "pad2d needs at least two dimensions");
  shape[r - 2] += top + bottom;
  shape[r - 1] += left + right;
  const int64_t h = x.shape()[r - 2], w = x.shape()[r - 1];
  std::vector<std::string> names;
  for (int d = 0; d < r; ++d) names.push_back("i" + std::to_string(d));
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx(i.begin(), i.end());
        Expr y = i[r - 2] - te::make_int(top), xx = i[r - 1] - te::make_int(left);
        idx[r - 2] = y;
        idx[r - 1] = xx;
        if (top == 0 && left == 0 && bottom == 0 && right == 0) return x(idx);
        Expr inside = y >= 0 && y < te::make_int(h) && xx >= 0 && xx < te::make_int(w);
        return te::select(inside, x(idx), te::make_const(x.dtype(), value));
      },
      name, names, "pad");
}

Tensor conv2d_nchw(const Tensor& input, const Tensor& weight, const Conv2dParams& p,
                   const std::string& name) {
  LATHE_CHECK(input.ndim() == 4 && weight.ndim() == 4, "conv2d_nchw: needs 4-D input and weight");
  const auto& is = input.shape();
  const auto& ws = weight.shape();
  const int64_t n = is[0], c = is[1], h = is[2], w = is[3];
  const int64_t f = ws[0], cg = ws[1], kh = ws[2], kw = ws[3];
  LATHE_CHECK(p.groups > 0 && c % p.groups == 0 && f % p.groups == 0 && cg == c / p.groups,
              "conv2d_nchw: channels ", c, " and weight ", ws[1], " do not match groups ",
              p.groups);
  const int64_t oh = (h + p.pad_top + p.pad_bottom - p.dilation_h * (kh - 1) - 1) / p.stride_h + 1;
  const int64_t ow = (w + p.pad_left + p.pad_right - p.dilation_w * (kw - 1) - 1) / p.stride_w + 1;
  Tensor padded =
      pad2d(input, p.pad_top, p.pad_left, p.pad_bottom, p.pad_right, 0.0, name + "_pad");
  IterVar rc = te::reduce_axis(cg, "rc");
  IterVar ry = te::reduce_axis(kh, "ry");
  IterVar rx = te::reduce_axis(kw, "rx");
  const int64_t per_group = f / p.groups;
  return te::compute(
      {n, f, oh, ow},
      [&](const std::vector<Var>& i) {
        Expr channel = p.groups == 1
                           ? Expr(rc.var())
                           : (i[1] / te::make_int(per_group)) * te::make_int(cg) + rc.var();
        Expr y = i[2] * te::make_int(p.stride_h) + ry.var() * te::make_int(p.dilation_h);
        Expr x = i[3] * te::make_int(p.stride_w) + rx.var() * te::make_int(p.dilation_w);
        return te::sum(padded(i[0], channel, y, x) * weight(i[1], rc.var(), ry.var(), rx.var()),
                       {rc, ry, rx});
      },
      name, {"nn", "ff", "yy", "xx"},
      p.groups == c && p.groups > 1 ? "depthwise_conv2d_nchw" : "conv2d_nchw");
}

Tensor pool2d_nchw(const Tensor& input, PoolKind kind, const Pool2dParams& p,
                   const std::string& name) {
  LATHE_CHECK(input.ndim() == 4, "pool2d_nchw: needs a 4-D input");
  const auto& s = input.shape();
  const int64_t oh = (s[2] + p.pad_top + p.pad_bottom - p.kernel_h) / p.stride_h + 1;
  const int64_t ow = (s[3] + p.pad_left + p.pad_right - p.kernel_w) / p.stride_w + 1;
  double pad_value = kind == PoolKind::Max ? -std::numeric_limits<double>::infinity() : 0.0;
  Tensor padded =
      pad2d(input, p.pad_top, p.pad_left, p.pad_bottom, p.pad_right, pad_value, name + "_pad");
  IterVar ry = te::reduce_axis(p.kernel_h, "ry");
  IterVar rx = te::reduce_axis(p.kernel_w, "rx");
  auto window = [&](const std::vector<Var>& i) {
    return padded(i[0], i[1], i[2] * te::make_int(p.stride_h) + ry.var(),
                  i[3] * te::make_int(p.stride_w) + rx.var());
  };
  if (kind == PoolKind::Max)
    return te::compute(
        {s[0], s[1], oh, ow},
        [&](const std::vector<Var>& i) {
          return te::max(window(i), {ry, rx});
        },
        name, {"n", "c", "y", "x"}, "pool_max");
  Tensor total = te::compute(
      {s[0], s[1], oh, ow},
      [&](const std::vector<Var>& i) {
        return te::sum(window(i), {ry, rx});
      },
      name + "_sum", {"n", "c", "y", "x"}, "pool_sum");
  return te::compute(
      {s[0], s[1], oh, ow},
      [&](const std::vector<Var>& i) {
        if (p.count_include_pad)
          return total(i[0], i[1], i[2], i[3]) /
                 te::make_const(input.dtype(), double(p.kernel_h * p.kernel_w));
        // Count only the window's points inside the unpadded input.
        auto count = [&](Expr o, int64_t stride, int64_t pad, int64_t k, int64_t size) {
          Expr lo = te::max(o * te::make_int(stride) - te::make_int(pad), te::make_int(0));
          Expr hi = te::min(o * te::make_int(stride) - te::make_int(pad) + te::make_int(k),
                            te::make_int(size));
          return hi - lo;
        };
        Expr n = count(i[2], p.stride_h, p.pad_top, p.kernel_h, s[2]) *
                 count(i[3], p.stride_w, p.pad_left, p.kernel_w, s[3]);
        return total(i[0], i[1], i[2], i[3]) / te::cast(input.dtype(), n);
      },
      name, {"n", "c", "y", "x"}, "pool_avg");
}

Tensor softmax_last_axis(const Tensor& x, const std::string& name) {
  std::vector<int64_t> shape = x.shape();
  const int r = x.ndim();
  std::vector<int64_t> outer(shape.begin(), shape.end() - 1);
  std::vector<std::string> names;
  for (int d = 0; d < r; ++d) names.push_back("i" + std::to_string(d));
  std::vector<std::string> outer_names(names.begin(), names.end() - 1);
  IterVar k1 = te::reduce_axis(shape[r - 1], "k1");
  auto with_last = [&](const std::vector<Var>& i, Expr last) {
    std::vector<Expr> idx(i.begin(), i.end());
    idx.push_back(last);
    return idx;
  };
  Tensor row_max = te::compute(
      outer, [&](const std::vector<Var>& i) { return te::max(x(with_last(i, k1.var())), {k1}); },
      name + "_max", outer_names);
  Tensor e = te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> head(i.begin(), i.end() - 1);
        return te::exp(x(std::vector<Expr>(i.begin(), i.end())) - row_max(head));
      },
      name + "_exp", names);
  IterVar k2 = te::reduce_axis(shape[r - 1], "k2");
  Tensor row_sum = te::compute(
      outer, [&](const std::vector<Var>& i) { return te::sum(e(with_last(i, k2.var())), {k2}); },
      name + "_sum", outer_names);
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> head(i.begin(), i.end() - 1);
        return e(std::vector<Expr>(i.begin(), i.end())) / row_sum(head);
      },
      name, names, "softmax");
}

}  // namespace lathe::topi
