#include "topi/nn.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/ops/layout.h"
#include "ir/tensor.h"
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

Tensor pad(const Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           double value, const std::string& name) {
  const int r = x.ndim();
  auto at = [](const std::vector<int64_t>& v, int d) {
    return static_cast<size_t>(d) < v.size() ? v[static_cast<size_t>(d)] : int64_t{0};
  };
  bool any = false;
  std::vector<int64_t> shape = x.shape();
  for (int d = 0; d < r; ++d) {
    LATHE_CHECK(at(before, d) >= 0 && at(after, d) >= 0, "pad: negative padding");
    shape[d] += at(before, d) + at(after, d);
    any |= at(before, d) != 0 || at(after, d) != 0;
  }
  if (!any) return x;
  std::vector<std::string> names;
  for (int d = 0; d < r; ++d) names.push_back("i" + std::to_string(d));
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> idx;
        Expr inside;
        for (int d = 0; d < r; ++d) {
          const int64_t b = at(before, d), a = at(after, d);
          Expr v = b ? Expr(i[d] - te::make_int(b)) : Expr(i[d]);
          idx.push_back(v);
          Expr cond;
          if (b) cond = v >= 0;
          if (a) {
            Expr hi = v < te::make_int(x.shape()[d]);
            cond = cond.defined() ? (cond && hi) : hi;
          }
          if (cond.defined()) inside = inside.defined() ? (inside && cond) : cond;
        }
        return te::select(inside, x(idx), te::make_const(x.dtype(), value));
      },
      name, names, "pad");
}

int64_t largest_divisor(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

Tensor conv2d_nchwc(const Tensor& data, const Tensor& kernel, const Conv2dParams& p,
                    const std::string& name) {
  LATHE_CHECK(data.ndim() == 5 && kernel.ndim() == 6,
              "conv2d_nchwc: needs a 5-D data [N, C/xb, H, W, xb] and 6-D kernel, got ",
              shape_to_string(data.shape()), " and ", shape_to_string(kernel.shape()));
  const auto& ds = data.shape();
  const auto& ks = kernel.shape();
  const int64_t n = ds[0], xb = ds[4], c = ds[1] * xb, h = ds[2], w = ds[3];
  const int64_t ob = ks[5], oc = ks[0] * ob, ib = ks[4], cg = ks[1] * ib, kh = ks[2], kw = ks[3];
  LATHE_CHECK(p.groups > 0 && c % p.groups == 0 && oc % p.groups == 0 && cg == c / p.groups,
              "conv2d_nchwc: ", c, " input channels and a kernel of ", cg,
              " channels per group do not match groups ", p.groups);
  const int64_t oh = (h + p.pad_top + p.pad_bottom - p.dilation_h * (kh - 1) - 1) / p.stride_h + 1;
  const int64_t ow = (w + p.pad_left + p.pad_right - p.dilation_w * (kw - 1) - 1) / p.stride_w + 1;
  LATHE_CHECK(oh > 0 && ow > 0, "conv2d_nchwc: empty output");
  Tensor padded = pad(data, {0, 0, p.pad_top, p.pad_left, 0}, {0, 0, p.pad_bottom, p.pad_right, 0},
                      0.0, name + "_pad");
  const bool depthwise = p.groups == c && oc == c && cg == 1;
  IterVar ry = te::reduce_axis(kh, "ry");
  IterVar rx = te::reduce_axis(kw, "rx");
  auto y_at = [&](const Var& y) {
    return y * te::make_int(p.stride_h) + ry.var() * te::make_int(p.dilation_h);
  };
  auto x_at = [&](const Var& x) {
    return x * te::make_int(p.stride_w) + rx.var() * te::make_int(p.dilation_w);
  };
  const std::vector<std::string> names = {"n", "oc_chunk", "oh", "ow", "oc_block"};
  if (depthwise) {
    return te::compute(
        {n, oc / ob, oh, ow, ob},
        [&](const std::vector<Var>& i) {
          Expr chunk = i[1], lane = i[4];
          if (xb != ob) {
            Expr ch = i[1] * te::make_int(ob) + i[4];
            chunk = ch / te::make_int(xb);
            lane = ch % te::make_int(xb);
          }
          return te::sum(
              padded(i[0], chunk, y_at(i[2]), x_at(i[3]), lane) *
                  kernel(i[1], te::make_int(0), ry.var(), rx.var(), te::make_int(0), i[4]),
              {ry, rx});
        },
        name, names, "depthwise_conv2d_NCHWc");
  }
  IterVar rco = te::reduce_axis(cg / ib, "rco");
  IterVar rci = te::reduce_axis(ib, "rci");
  const int64_t per_group = oc / p.groups;
  // Grouped convs whose channel blocks and groups nest read their input
  // without dividing by the block, so that the vector of an output block
  // reads one input value (a block inside a group: a broadcast) or one value
  // per group from its own input block (lane o reads lane
  // (o / per_group) * per_group + rc, which codegen loads as one vector and
  // shuffles), never a gather.
  const GroupNesting nesting = group_nesting(p.groups, cg, per_group, xb, ib, ob);
  const bool block_in_group = nesting == GroupNesting::BlockInGroup;
  const bool groups_in_block = nesting == GroupNesting::GroupsInBlock;
  return te::compute(
      {n, oc / ob, oh, ow, ob},
      [&](const std::vector<Var>& i) {
        Expr chunk = rco.var(), lane = rci.var();
        if (block_in_group) {
          chunk = i[1] / te::make_int(per_group / ob) * te::make_int(cg / xb) + rco.var();
        } else if (groups_in_block) {
          chunk = i[1];
          lane = i[4] / te::make_int(per_group) * te::make_int(per_group) +
                 rco.var() * te::make_int(ib) + rci.var();
        } else if (p.groups != 1 || ib != xb) {
          Expr ch = rco.var() * te::make_int(ib) + rci.var();
          if (p.groups != 1)
            ch = ((i[1] * te::make_int(ob) + i[4]) / te::make_int(per_group)) * te::make_int(cg) +
                 ch;
          chunk = ch / te::make_int(xb);
          lane = ch % te::make_int(xb);
        }
        return te::sum(padded(i[0], chunk, y_at(i[2]), x_at(i[3]), lane) *
                           kernel(i[1], rco.var(), ry.var(), rx.var(), rci.var(), i[4]),
                       {rco, ry, rx, rci});
      },
      name, names, "conv2d_NCHWc");
}

Tensor batch_matmul(const Tensor& a, const Tensor& b, bool trans_a, bool trans_b,
                    const std::string& name) {
  LATHE_CHECK(a.ndim() >= 1 && b.ndim() >= 1, "batch_matmul: scalar operand");
  LATHE_CHECK(!(trans_a && a.ndim() < 2) && !(trans_b && b.ndim() < 2),
              "batch_matmul: a vector cannot be transposed");
  const int ra = a.ndim(), rb = b.ndim();
  std::vector<int64_t> sa = a.shape(), sb = b.shape();
  if (trans_a) std::swap(sa[ra - 1], sa[ra - 2]);
  // B transposed is read through a stage that the schedule packs into panels
  // whose N-columns are contiguous.
  Tensor bt = b;
  if (trans_b) {
    std::swap(sb[rb - 1], sb[rb - 2]);
    std::vector<std::string> names;
    for (int d = 0; d < rb; ++d) names.push_back("i" + std::to_string(d));
    bt = te::compute(
        sb,
        [&](const std::vector<Var>& i) {
          std::vector<Expr> idx(i.begin(), i.end());
          std::swap(idx[rb - 1], idx[rb - 2]);
          return b(idx);
        },
        name + "_bt", names, "transpose_b");
  }
  if (ra == 1) sa.insert(sa.begin(), 1);
  if (rb == 1) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2], k = sa.back(), kb = sb[sb.size() - 2], ncols = sb.back();
  LATHE_CHECK(k == kb, "batch_matmul: inner dimensions ", k, " and ", kb, " differ");
  const size_t ba = sa.size() - 2, bb = sb.size() - 2, nb = std::max(ba, bb);
  std::vector<int64_t> shape(nb);
  for (size_t d = 0; d < nb; ++d) {
    int64_t ea = d + ba >= nb ? sa[d + ba - nb] : 1;
    int64_t eb = d + bb >= nb ? sb[d + bb - nb] : 1;
    LATHE_CHECK(ea == eb || ea == 1 || eb == 1, "batch_matmul: batch dimensions do not broadcast");
    shape[d] = std::max(ea, eb);
  }
  if (ra > 1) shape.push_back(m);
  if (rb > 1) shape.push_back(ncols);
  std::vector<std::string> names;
  for (size_t d = 0; d < nb; ++d) names.push_back("b" + std::to_string(d));
  if (ra > 1) names.push_back("i");
  if (rb > 1) names.push_back("j");
  IterVar kk = te::reduce_axis(k, "k");
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        // Batch indices of an operand: its trailing batch dimensions, 0 where broadcast.
        auto batch_of = [&](const std::vector<int64_t>& s, size_t own) {
          std::vector<Expr> idx;
          for (size_t d = 0; d < own; ++d)
            idx.push_back(s[d] == 1 && shape[d + nb - own] != 1 ? te::make_int(0)
                                                                : Expr(i[d + nb - own]));
          return idx;
        };
        Expr row = ra > 1 ? Expr(i[nb]) : Expr();
        Expr col = rb > 1 ? Expr(i[i.size() - 1]) : Expr();
        std::vector<Expr> ia = batch_of(sa, ba);
        if (ra == 1) {
          ia = {kk.var()};
        } else if (trans_a) {
          ia.push_back(kk.var());
          ia.push_back(row);
        } else {
          ia.push_back(row);
          ia.push_back(kk.var());
        }
        std::vector<Expr> ib = batch_of(sb, bb);
        if (rb == 1) {
          ib = {kk.var()};
        } else {
          ib.push_back(kk.var());
          ib.push_back(col);
        }
        return te::sum(a(ia) * bt(ib), {kk});
      },
      name, names, ra > 1 && rb > 1 ? "matmul" : "matvec");
}

Expr window_tap_count(Expr o, int64_t stride, int64_t dilation, int64_t pad_begin, int64_t kernel,
                      int64_t lo, int64_t hi) {
  Expr base = o * te::make_int(stride) - te::make_int(pad_begin);
  Expr first =
      te::max((te::make_int(lo + dilation - 1) - base) / te::make_int(dilation), te::make_int(0));
  Expr last =
      te::min((te::make_int(hi - 1) - base) / te::make_int(dilation), te::make_int(kernel - 1));
  return te::max(last - first + te::make_int(1), te::make_int(0));
}

Tensor pool2d_window(const Tensor& input, PoolKind kind, const PoolWindow& w,
                     const std::string& name) {
  LATHE_CHECK(input.ndim() == 4 || input.ndim() == 5,
              "pool2d_window: needs a 4-D (NCHW) or 5-D (NCHWc) input");
  const auto& s = input.shape();
  const bool blocked = input.ndim() == 5;
  // The padded extent covers every window, ceil-mode overhang included.
  const int64_t need_h = (w.out_h - 1) * w.stride_h + (w.kernel_h - 1) * w.dilation_h + 1;
  const int64_t need_w = (w.out_w - 1) * w.stride_w + (w.kernel_w - 1) * w.dilation_w + 1;
  const int64_t extra_h = std::max<int64_t>(0, need_h - w.pad_top - s[2]);
  const int64_t extra_w = std::max<int64_t>(0, need_w - w.pad_left - s[3]);
  // A max pads with the type's least value: -inf, or an integer type's own
  // (which -inf does not convert to).
  const te::DataType t = input.dtype();
  double pad_value = 0.0;
  if (kind == PoolKind::Max)
    pad_value = t.is_int()    ? -std::ldexp(1.0, t.bits - 1)
                : t.is_uint() ? 0.0
                              : -std::numeric_limits<double>::infinity();
  std::vector<int64_t> before = {0, 0, w.pad_top, w.pad_left}, after = {0, 0, extra_h, extra_w};
  std::vector<int64_t> out_shape = {s[0], s[1], w.out_h, w.out_w};
  std::vector<std::string> names = {"n", "c", "y", "x"};
  if (blocked) {  // the channel block: one more data axis, innermost
    before.push_back(0);
    after.push_back(0);
    out_shape.push_back(s[4]);
    names.push_back("cb");
  }
  Tensor padded = pad(input, before, after, pad_value, name + "_pad");
  IterVar ry = te::reduce_axis(w.kernel_h, "ry");
  IterVar rx = te::reduce_axis(w.kernel_w, "rx");
  auto window = [&](const std::vector<Var>& i) {
    std::vector<Expr> at = {
        i[0], i[1], i[2] * te::make_int(w.stride_h) + ry.var() * te::make_int(w.dilation_h),
        i[3] * te::make_int(w.stride_w) + rx.var() * te::make_int(w.dilation_w)};
    if (blocked) at.push_back(i[4]);
    return padded(at);
  };
  if (kind == PoolKind::Max)
    return te::compute(
        out_shape,
        [&](const std::vector<Var>& i) {
          return te::max(window(i), {ry, rx});
        },
        name, names, "pool_max");
  Tensor total = te::compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        return te::sum(window(i), {ry, rx});
      },
      name + "_sum", names, "pool_sum");
  return te::compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        Expr count;
        if (w.count_include_pad)
          count = window_tap_count(i[2], w.stride_h, w.dilation_h, w.pad_top, w.kernel_h,
                                   -w.pad_top, s[2] + w.pad_bottom) *
                  window_tap_count(i[3], w.stride_w, w.dilation_w, w.pad_left, w.kernel_w,
                                   -w.pad_left, s[3] + w.pad_right);
        else
          count = window_tap_count(i[2], w.stride_h, w.dilation_h, w.pad_top, w.kernel_h, 0, s[2]) *
                  window_tap_count(i[3], w.stride_w, w.dilation_w, w.pad_left, w.kernel_w, 0, s[3]);
        return total(std::vector<Expr>(i.begin(), i.end())) /
               te::cast(input.dtype(), te::max(count, te::make_int(1)));
      },
      name, names, "pool_avg");
}

Tensor global_pool(const Tensor& input, PoolKind kind, const std::string& name, bool blocked) {
  LATHE_CHECK(input.ndim() >= (blocked ? 4 : 3), "global_pool: needs N x C x spatial...");
  std::vector<int64_t> shape = input.shape();
  // Spatial dimensions: all after the first two, but for the channel block.
  const int spatial_end = input.ndim() - (blocked ? 1 : 0);
  std::vector<IterVar> axes;
  int64_t count = 1;
  for (int d = 2; d < spatial_end; ++d) {
    axes.push_back(te::reduce_axis(shape[d], "r" + std::to_string(d - 2)));
    count *= shape[d];
    shape[d] = 1;
  }
  std::vector<std::string> names;
  for (int d = 0; d < input.ndim(); ++d) names.push_back("i" + std::to_string(d));
  auto at = [&](const std::vector<Var>& i) {
    std::vector<Expr> idx = {i[0], i[1]};
    for (const IterVar& r : axes) idx.push_back(r.var());
    if (blocked) idx.push_back(i.back());
    return input(idx);
  };
  if (kind == PoolKind::Max)
    return te::compute(
        shape, [&](const std::vector<Var>& i) { return te::max(at(i), axes); }, name, names,
        "global_pool_max");
  Tensor total = te::compute(
      shape, [&](const std::vector<Var>& i) { return te::sum(at(i), axes); }, name + "_sum", names,
      "global_pool_sum");
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        return total(std::vector<Expr>(i.begin(), i.end())) /
               te::make_const(input.dtype(), double(count));
      },
      name, names, "global_pool_avg");
}

Tensor softmax(const Tensor& x, int axis, bool log, const std::string& name) {
  const int r = x.ndim();
  LATHE_CHECK(axis >= 0 && axis < r, "softmax: axis ", axis, " out of range");
  std::vector<int64_t> shape = x.shape();
  std::vector<int64_t> outer = shape;
  outer.erase(outer.begin() + axis);
  std::vector<std::string> names, outer_names;
  for (int d = 0; d < r; ++d) names.push_back("i" + std::to_string(d));
  outer_names = names;
  outer_names.erase(outer_names.begin() + axis);
  auto with_axis = [&](const std::vector<Var>& i, Expr v) {
    std::vector<Expr> idx(i.begin(), i.end());
    idx.insert(idx.begin() + axis, v);
    return idx;
  };
  auto without_axis = [&](const std::vector<Var>& i) {
    std::vector<Expr> idx(i.begin(), i.end());
    idx.erase(idx.begin() + axis);
    return idx;
  };
  auto all = [](const std::vector<Var>& i) { return std::vector<Expr>(i.begin(), i.end()); };
  IterVar k1 = te::reduce_axis(shape[axis], "k1");
  Tensor row_max = te::compute(
      outer, [&](const std::vector<Var>& i) { return te::max(x(with_axis(i, k1.var())), {k1}); },
      name + "_max", outer_names);
  IterVar k2 = te::reduce_axis(shape[axis], "k2");
  if (log) {
    Tensor row_sum = te::compute(
        outer,
        [&](const std::vector<Var>& i) {
          std::vector<Expr> o(i.begin(), i.end());
          return te::sum(te::exp(x(with_axis(i, k2.var())) - row_max(o)), {k2});
        },
        name + "_sum", outer_names);
    return te::compute(
        shape,
        [&](const std::vector<Var>& i) {
          return x(all(i)) - row_max(without_axis(i)) - te::log(row_sum(without_axis(i)));
        },
        name, names, "log_softmax");
  }
  Tensor e = te::compute(
      shape,
      [&](const std::vector<Var>& i) { return te::exp(x(all(i)) - row_max(without_axis(i))); },
      name + "_exp", names);
  Tensor row_sum = te::compute(
      outer, [&](const std::vector<Var>& i) { return te::sum(e(with_axis(i, k2.var())), {k2}); },
      name + "_sum", outer_names);
  return te::compute(
      shape, [&](const std::vector<Var>& i) { return e(all(i)) / row_sum(without_axis(i)); }, name,
      names, "softmax");
}

}  // namespace lathe::topi
