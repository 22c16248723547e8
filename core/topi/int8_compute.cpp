// The compute definitions of topi/int8.h.
#include <numeric>

#include "support/error.h"
#include "support/int_math.h"
#include "topi/int8.h"

namespace lathe::topi {
namespace {

using te::DataType;
using te::Expr;
using te::IterVar;
using te::Var;

const DataType kI32 = DataType::Int(32);

void check_8bit(const Tensor& t, const char* op, const char* what) {
  const DataType d = t.dtype();
  LATHE_CHECK(d == DataType::UInt(8) || d == DataType::Int(8), op, ": ", what,
              " must be uint8 or int8, got ", d.to_string());
}

int64_t numel(const Tensor& t) {
  return std::accumulate(t.shape().begin(), t.shape().end(), int64_t{1},
                         std::multiplies<int64_t>());
}

// A zero point as int32, plus `shift`: the element for `channel` of a
// per-channel one (`channels` long), else the one element; 0 + shift for none.
Expr zero_point(const QuantOperand& q, const Expr& channel, int64_t channels, int64_t shift,
                const char* op) {
  if (!q.zero_point.defined()) return te::make_int(shift);
  const Tensor& z = q.zero_point;
  LATHE_CHECK(z.dtype() == q.value.dtype(), op, ": zero point of type ", z.dtype().to_string(),
              " for an operand of type ", q.value.dtype().to_string());
  const int64_t n = numel(z);
  LATHE_CHECK(z.ndim() <= 1 && (n == 1 || n == channels), op, ": a zero point has one element ",
              "or one per channel (", channels, "), got shape of ", n, " elements");
  std::vector<Expr> index;
  if (z.ndim() == 1) index.push_back(n == 1 ? te::make_int(0) : channel);
  Expr v = te::cast(kI32, z(index));
  return shift ? v + te::make_int(shift) : v;
}

// +128 that takes an int8 activation into uint8; -128 that takes a uint8 weight into int8.
int64_t activation_shift(const Tensor& x) {
  return x.dtype().is_int() ? 128 : 0;
}
int64_t weight_shift(const Tensor& w) {
  return w.dtype().is_uint() ? -128 : 0;
}
bool is_zero(const Expr& e) {
  return te::is_const_int(e, 0);
}

Expr and_all(const std::vector<Expr>& conditions) {
  Expr all;
  for (const Expr& c : conditions) all = all.defined() ? (all && c) : c;
  return all;
}

// The sums the zero points' terms need: sum w per output channel (given, or
// computed from the packed weights) where the activations' zero point is
// not zero, sum x per output pixel where the weights' is not.
void add_conv_sums(Int8Kernel& k, const Conv2dParams& p, bool x_zero_nonzero, bool w_zero_nonzero,
                   const Tensor& given_weight_sum, const std::string& name) {
  const auto& ds = k.data.shape();
  const auto& ws = k.weights.shape();
  const int64_t cb = ws[1], kh = ws[2], kw = ws[3], iq = ws[4], ib = ds[4];
  const int64_t n = ds[0], oh = k.product.shape()[2], ow = k.product.shape()[3];
  if (x_zero_nonzero && given_weight_sum.defined()) {
    k.weight_sum = given_weight_sum;
  } else if (x_zero_nonzero) {
    IterVar sco = te::reduce_axis(cb, "rco"), sy = te::reduce_axis(kh, "ry"),
            sx = te::reduce_axis(kw, "rx"), sq = te::reduce_axis(iq, "rcq"),
            sl = te::reduce_axis(kInt8Group, "rcl");
    k.weight_sum =
        te::compute({ws[0], kInt8Lanes},
                    [&](const std::vector<Var>& i) {
                      return te::sum(te::cast(kI32, k.weights(i[0], sco.var(), sy.var(), sx.var(),
                                                              sq.var(), i[1], sl.var())),
                                     {sco, sy, sx, sq, sl});
                    },
                    name + "_weight_sum", {"oc_chunk", "oc_block"});
  }
  if (w_zero_nonzero) {
    IterVar sco = te::reduce_axis(cb, "rco"), sy = te::reduce_axis(kh, "ry"),
            sx = te::reduce_axis(kw, "rx"), sc = te::reduce_axis(ib, "rc");
    k.data_sum = te::compute(
        {n, oh, ow},
        [&](const std::vector<Var>& i) {
          Expr y = i[1] * te::make_int(p.stride_h) + sy.var() * te::make_int(p.dilation_h);
          Expr x = i[2] * te::make_int(p.stride_w) + sx.var() * te::make_int(p.dilation_w);
          return te::sum(te::cast(kI32, k.data(i[0], sco.var(), y, x, sc.var())),
                         {sco, sy, sx, sc});
        },
        name + "_data_sum", {"n", "oh", "ow"});
  }
}

// The product corrected by the zero points' terms:
//   sum x w - wz sum x - xz sum w + K xz wz.
Expr corrected(const Int8Kernel& k, Expr v, const Expr& n, const Expr& y, const Expr& x,
               const Expr& chunk, const Expr& lane, const Expr& x_zero, const Expr& w_zero,
               int64_t taps) {
  if (k.data_sum.defined()) v = v - w_zero * k.data_sum(n, y, x);
  if (k.weight_sum.defined()) v = v - x_zero * k.weight_sum(chunk, lane);
  if (k.data_sum.defined() && k.weight_sum.defined()) v = v + te::make_int(taps) * x_zero * w_zero;
  return v;
}

}  // namespace

Int8Kernel conv2d_integer_nchwc(const QuantOperand& x, const QuantOperand& w, const Conv2dParams& p,
                                int64_t ic_block, const std::string& name) {
  const char* op = "ConvInteger";
  check_8bit(x.value, op, "the input");
  check_8bit(w.value, op, "the weight");
  LATHE_CHECK(x.value.ndim() == 4 && w.value.ndim() == 4, op, ": needs 4-D input and weight");
  const auto& xs = x.value.shape();
  const auto& ws = w.value.shape();
  const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3];
  const int64_t oc = ws[0], kh = ws[2], kw = ws[3];
  LATHE_CHECK(p.groups == 1 && ws[1] == c, op, ": input of ", c, " channels and weight of ", ws[1],
              " per group with groups ", p.groups, " (grouped convs other than depthwise are ",
              "not compiled to int8)");
  const int64_t oh = (h + p.pad_top + p.pad_bottom - p.dilation_h * (kh - 1) - 1) / p.stride_h + 1;
  const int64_t ow = (wd + p.pad_left + p.pad_right - p.dilation_w * (kw - 1) - 1) / p.stride_w + 1;
  LATHE_CHECK(oh > 0 && ow > 0, op, ": empty output");
  const int64_t ib = ceildiv(std::max<int64_t>(ic_block, kInt8Group), kInt8Group) * kInt8Group;
  const int64_t cb = ceildiv(c, ib), ocb = ceildiv(oc, kInt8Lanes);
  const int64_t hp = h + p.pad_top + p.pad_bottom, wp = wd + p.pad_left + p.pad_right;
  const int64_t x_shift = activation_shift(x.value), w_shift = weight_shift(w.value);
  const Expr x_zero = zero_point(x, Expr(), 1, x_shift, op);

  Int8Kernel k;
  k.lanes = kInt8Lanes;
  // [N, C/ib, H + pads, W + pads, ib] uint8: shifted, padded with the zero point.
  k.data = te::compute({n, cb, hp, wp, ib},
                       [&](const std::vector<Var>& i) {
                         Expr ch = i[1] * te::make_int(ib) + i[4];
                         Expr y = i[2] - te::make_int(p.pad_top),
                              xx = i[3] - te::make_int(p.pad_left);
                         Expr v = te::cast(kI32, x.value(i[0], ch, y, xx));
                         if (x_shift) v = v + te::make_int(x_shift);
                         std::vector<Expr> inside;
                         if (p.pad_top) inside.push_back(y >= 0);
                         if (p.pad_bottom) inside.push_back(y < te::make_int(h));
                         if (p.pad_left) inside.push_back(xx >= 0);
                         if (p.pad_right) inside.push_back(xx < te::make_int(wd));
                         if (Expr cond = and_all(inside); cond.defined())
                           v = te::select(cond, v, x_zero);
                         if (cb * ib != c) v = te::select(ch < te::make_int(c), v, te::make_int(0));
                         return te::cast(DataType::UInt(8), v);
                       },
                       name + "_data", {"n", "c_chunk", "h", "w", "c_block"});
  // [OC/16, C/ib, KH, KW, ib/4, 16, 4] int8, zero where channels are padding.
  k.weights = te::compute(
      {ocb, cb, kh, kw, ib / kInt8Group, kInt8Lanes, kInt8Group},
      [&](const std::vector<Var>& i) {
        Expr o = i[0] * te::make_int(kInt8Lanes) + i[5];
        Expr ch = i[1] * te::make_int(ib) + i[4] * te::make_int(kInt8Group) + i[6];
        Expr v = te::cast(kI32, w.value(o, ch, i[2], i[3]));
        if (w_shift) v = v + te::make_int(w_shift);
        std::vector<Expr> inside;
        if (ocb * kInt8Lanes != oc) inside.push_back(o < te::make_int(oc));
        if (cb * ib != c) inside.push_back(ch < te::make_int(c));
        if (Expr cond = and_all(inside); cond.defined()) v = te::select(cond, v, te::make_int(0));
        return te::cast(DataType::Int(8), v);
      },
      name + "_weights", {"oc_chunk", "ic_chunk", "kh", "kw", "ic_quad", "oc_block", "ic_lane"});
  k.product = conv2d_nchwc_int8(k.data, k.weights, p, name + "_product");
  add_conv_sums(k, p, !is_zero(x_zero), !is_zero(zero_point(w, Var("oc"), oc, w_shift, op)),
                Tensor(), name);
  const int64_t taps = c * kh * kw;
  k.output = te::compute(
      {n, oc, oh, ow},
      [&](const std::vector<Var>& i) {
        Expr chunk = i[1] / te::make_int(kInt8Lanes), lane = i[1] % te::make_int(kInt8Lanes);
        return corrected(k, k.product(i[0], chunk, i[2], i[3], lane), i[0], i[2], i[3], chunk, lane,
                         x_zero, zero_point(w, i[1], oc, w_shift, op), taps);
      },
      name, {"n", "oc", "oh", "ow"}, "conv_integer");
  return k;
}

Int8Kernel conv2d_integer_packed(const QuantOperand& x, const QuantOperand& w,
                                 const Tensor& weight_sum, const Conv2dParams& p,
                                 const std::string& name) {
  const char* op = "ConvIntegerNCHWc";
  LATHE_CHECK(x.value.ndim() == 5 && x.value.dtype() == DataType::UInt(8) && w.value.ndim() == 7 &&
                  w.value.dtype() == DataType::Int(8),
              op, ": needs uint8 data [N, C/ib, H, W, ib] and packed int8 weights");
  const auto& xs = x.value.shape();
  const auto& ws = w.value.shape();
  const int64_t n = xs[0], cb = xs[1], h = xs[2], wd = xs[3], ib = xs[4];
  const int64_t ocb = ws[0], kh = ws[2], kw = ws[3];
  const int64_t oc = ocb * kInt8Lanes;
  const Expr x_zero = zero_point(x, Expr(), 1, 0, op);
  Int8Kernel k;
  k.lanes = kInt8Lanes;
  k.weights = w.value;
  if (p.pad_top || p.pad_bottom || p.pad_left || p.pad_right) {
    // The spatial padding holds the zero point: a padded tap adds zero.
    k.data = te::compute({n, cb, h + p.pad_top + p.pad_bottom, wd + p.pad_left + p.pad_right, ib},
                         [&](const std::vector<Var>& i) {
                           Expr y = i[2] - te::make_int(p.pad_top),
                                xx = i[3] - te::make_int(p.pad_left);
                           std::vector<Expr> inside;
                           if (p.pad_top) inside.push_back(y >= 0);
                           if (p.pad_bottom) inside.push_back(y < te::make_int(h));
                           if (p.pad_left) inside.push_back(xx >= 0);
                           if (p.pad_right) inside.push_back(xx < te::make_int(wd));
                           return te::select(and_all(inside), x.value(i[0], i[1], y, xx, i[4]),
                                             te::cast(DataType::UInt(8), x_zero));
                         },
                         name + "_data", {"n", "c_chunk", "h", "w", "c_block"});
  } else {
    k.data = x.value;
  }
  k.product = conv2d_nchwc_int8(k.data, k.weights, p, name + "_product");
  const Expr w_zero_probe = zero_point(w, Var("oc"), oc, 0, op);
  add_conv_sums(k, p, !is_zero(x_zero), !is_zero(w_zero_probe), weight_sum, name);
  const int64_t taps = cb * ib * kh * kw;
  k.output = te::compute(
      k.product.shape(),
      [&](const std::vector<Var>& i) {
        Expr channel = i[1] * te::make_int(kInt8Lanes) + i[4];
        return corrected(k, k.product(std::vector<Expr>(i.begin(), i.end())), i[0], i[2], i[3],
                         i[1], i[4], x_zero, zero_point(w, channel, oc, 0, op), taps);
      },
      name, {"n", "oc_chunk", "oh", "ow", "oc_block"}, "conv_integer");
  return k;
}

Tensor conv2d_nchwc_int8(const Tensor& data, const Tensor& weights, const Conv2dParams& p,
                         const std::string& name) {
  LATHE_CHECK(data.ndim() == 5 && weights.ndim() == 7 && data.dtype() == DataType::UInt(8) &&
                  weights.dtype() == DataType::Int(8) && weights.shape()[5] == kInt8Lanes &&
                  weights.shape()[6] == kInt8Group &&
                  data.shape()[4] == weights.shape()[4] * kInt8Group,
              "conv2d_nchwc_int8: needs uint8 data [N, C/ib, H, W, ib] and int8 weights ",
              "[OC/16, C/ib, KH, KW, ib/4, 16, 4]");
  const auto& ds = data.shape();
  const auto& ws = weights.shape();
  const int64_t kh = ws[2], kw = ws[3];
  const int64_t oh = (ds[2] - p.dilation_h * (kh - 1) - 1) / p.stride_h + 1;
  const int64_t ow = (ds[3] - p.dilation_w * (kw - 1) - 1) / p.stride_w + 1;
  IterVar rco = te::reduce_axis(ds[1], "rco"), ry = te::reduce_axis(kh, "ry"),
          rx = te::reduce_axis(kw, "rx"), rcq = te::reduce_axis(ws[4], "rcq"),
          rcl = te::reduce_axis(kInt8Group, "rcl");
  return te::compute(
      {ds[0], ws[0], oh, ow, kInt8Lanes},
      [&](const std::vector<Var>& i) {
        Expr a = data(i[0], rco.var(),
                      i[2] * te::make_int(p.stride_h) + ry.var() * te::make_int(p.dilation_h),
                      i[3] * te::make_int(p.stride_w) + rx.var() * te::make_int(p.dilation_w),
                      rcq.var() * te::make_int(kInt8Group) + rcl.var());
        Expr b = weights(i[1], rco.var(), ry.var(), rx.var(), rcq.var(), i[4], rcl.var());
        return te::sum(te::cast(kI32, a) * te::cast(kI32, b), {rco, ry, rx, rcq, rcl});
      },
      name, {"n", "oc_chunk", "oh", "ow", "oc_block"}, "conv2d_NCHWc_int8");
}

Tensor depthwise_conv2d_integer(const QuantOperand& x, const QuantOperand& w, const Conv2dParams& p,
                                const std::string& name) {
  const char* op = "ConvInteger";
  check_8bit(x.value, op, "the input");
  check_8bit(w.value, op, "the weight");
  const auto& xs = x.value.shape();
  const auto& ws = w.value.shape();
  LATHE_CHECK(x.value.ndim() == 4 && w.value.ndim() == 4 && ws[1] == 1 && ws[0] == xs[1] &&
                  p.groups == xs[1],
              op, ": a depthwise conv needs weight [C, 1, KH, KW] and groups == C");
  const int64_t c = xs[1], h = xs[2], wd = xs[3], kh = ws[2], kw = ws[3];
  const int64_t oh = (h + p.pad_top + p.pad_bottom - p.dilation_h * (kh - 1) - 1) / p.stride_h + 1;
  const int64_t ow = (wd + p.pad_left + p.pad_right - p.dilation_w * (kw - 1) - 1) / p.stride_w + 1;
  LATHE_CHECK(oh > 0 && ow > 0, op, ": empty output");
  // Padded with the zero point, whose difference with itself is the zero a tap adds.
  const Expr x_zero = zero_point(x, Expr(), 1, 0, op);
  Tensor padded =
      te::compute({xs[0], c, h + p.pad_top + p.pad_bottom, wd + p.pad_left + p.pad_right},
                  [&](const std::vector<Var>& i) {
                    Expr y = i[2] - te::make_int(p.pad_top), xx = i[3] - te::make_int(p.pad_left);
                    Expr v = te::cast(kI32, x.value(i[0], i[1], y, xx));
                    std::vector<Expr> inside;
                    if (p.pad_top) inside.push_back(y >= 0);
                    if (p.pad_bottom) inside.push_back(y < te::make_int(h));
                    if (p.pad_left) inside.push_back(xx >= 0);
                    if (p.pad_right) inside.push_back(xx < te::make_int(wd));
                    if (Expr cond = and_all(inside); cond.defined())
                      v = te::select(cond, v, x_zero);
                    return v - x_zero;
                  },
                  name + "_pad", {"n", "c", "h", "w"});
  IterVar ry = te::reduce_axis(kh, "ry"), rx = te::reduce_axis(kw, "rx");
  return te::compute(
      {xs[0], c, oh, ow},
      [&](const std::vector<Var>& i) {
        Expr wv = te::cast(kI32, w.value(i[1], te::make_int(0), ry.var(), rx.var())) -
                  zero_point(w, i[1], c, 0, op);
        Expr a = padded(i[0], i[1],
                        i[2] * te::make_int(p.stride_h) + ry.var() * te::make_int(p.dilation_h),
                        i[3] * te::make_int(p.stride_w) + rx.var() * te::make_int(p.dilation_w));
        return te::sum(a * wv, {ry, rx});
      },
      name, {"n", "c", "oh", "ow"}, "depthwise_conv_integer");
}

Int8Kernel matmul_integer(const QuantOperand& a, const QuantOperand& b, const std::string& name) {
  const char* op = "MatMulInteger";
  check_8bit(a.value, op, "A");
  check_8bit(b.value, op, "B");
  LATHE_CHECK(a.value.ndim() >= 2 && b.value.ndim() == 2, op,
              ": compiled for A of rank 2 or more and a 2-D B");
  const auto& as = a.value.shape();
  const int64_t kdim = as.back(), m = as[as.size() - 2], n = b.value.shape()[1];
  LATHE_CHECK(b.value.shape()[0] == kdim, op, ": A has ", kdim, " columns, B ", b.value.shape()[0],
              " rows");
  const int64_t rows = numel(a.value) / kdim;
  const int64_t kq = ceildiv(kdim, kInt8Group), nb = ceildiv(n, kInt8Lanes);
  const int64_t a_shift = activation_shift(a.value), b_shift = weight_shift(b.value);
  const int rank = a.value.ndim();

  Int8Kernel k;
  k.lanes = kInt8Lanes;
  // [rows, K rounded up to 4] uint8, rows flattened over A's leading dimensions.
  k.data = te::compute({rows, kq * kInt8Group},
                       [&](const std::vector<Var>& i) {
                         std::vector<Expr> index(static_cast<size_t>(rank));
                         Expr rest = i[0];
                         for (int d = rank - 2; d >= 0; --d) {
                           const int64_t extent = as[static_cast<size_t>(d)];
                           index[static_cast<size_t>(d)] =
                               d == 0 ? rest : rest % te::make_int(extent);
                           if (d > 0) rest = rest / te::make_int(extent);
                         }
                         index[static_cast<size_t>(rank - 1)] = i[1];
                         Expr v = te::cast(kI32, a.value(index));
                         if (a_shift) v = v + te::make_int(a_shift);
                         if (kq * kInt8Group != kdim)
                           v = te::select(i[1] < te::make_int(kdim), v, te::make_int(0));
                         return te::cast(DataType::UInt(8), v);
                       },
                       name + "_data", {"row", "k"});
  k.weights = te::compute({nb, kq, kInt8Lanes, kInt8Group},
                          [&](const std::vector<Var>& i) {
                            Expr col = i[0] * te::make_int(kInt8Lanes) + i[2];
                            Expr kk = i[1] * te::make_int(kInt8Group) + i[3];
                            Expr v = te::cast(kI32, b.value(kk, col));
                            if (b_shift) v = v + te::make_int(b_shift);
                            std::vector<Expr> inside;
                            if (nb * kInt8Lanes != n) inside.push_back(col < te::make_int(n));
                            if (kq * kInt8Group != kdim) inside.push_back(kk < te::make_int(kdim));
                            if (Expr cond = and_all(inside); cond.defined())
                              v = te::select(cond, v, te::make_int(0));
                            return te::cast(DataType::Int(8), v);
                          },
                          name + "_weights", {"n_chunk", "k_quad", "n_block", "k_lane"});
  IterVar rkq = te::reduce_axis(kq, "rkq"), rkl = te::reduce_axis(kInt8Group, "rkl");
  k.product = te::compute(
      {rows, nb, kInt8Lanes},
      [&](const std::vector<Var>& i) {
        Expr x = k.data(i[0], rkq.var() * te::make_int(kInt8Group) + rkl.var());
        Expr y = k.weights(i[1], rkq.var(), i[2], rkl.var());
        return te::sum(te::cast(kI32, x) * te::cast(kI32, y), {rkq, rkl});
      },
      name + "_product", {"row", "n_chunk", "n_block"}, "dense_int8");

  Var probe("i");
  const Expr a_zero_probe = zero_point(a, probe, m, a_shift, op);
  const Expr b_zero_probe = zero_point(b, probe, n, b_shift, op);
  if (!is_zero(a_zero_probe)) {
    IterVar sq = te::reduce_axis(kq, "rkq"), sl = te::reduce_axis(kInt8Group, "rkl");
    k.weight_sum = te::compute(
        {nb, kInt8Lanes},
        [&](const std::vector<Var>& i) {
          return te::sum(te::cast(kI32, k.weights(i[0], sq.var(), i[1], sl.var())), {sq, sl});
        },
        name + "_weight_sum", {"n_chunk", "n_block"});
  }
  if (!is_zero(b_zero_probe)) {
    IterVar sk = te::reduce_axis(kq * kInt8Group, "rk");
    k.data_sum = te::compute({rows},
                             [&](const std::vector<Var>& i) {
                               return te::sum(te::cast(kI32, k.data(i[0], sk.var())), {sk});
                             },
                             name + "_data_sum", {"row"});
  }
  std::vector<int64_t> out_shape(as.begin(), as.end() - 1);
  out_shape.push_back(n);
  k.output = te::compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        Expr row = i[0];
        for (int d = 1; d < rank - 1; ++d)
          row = row * te::make_int(as[static_cast<size_t>(d)]) + i[static_cast<size_t>(d)];
        const Var& col = i.back();
        Expr chunk = col / te::make_int(kInt8Lanes), lane = col % te::make_int(kInt8Lanes);
        Expr v = k.product(row, chunk, lane);
        const Expr a_zero = zero_point(a, i[static_cast<size_t>(rank - 2)], m, a_shift, op);
        const Expr b_zero = zero_point(b, col, n, b_shift, op);
        if (k.data_sum.defined()) v = v - b_zero * k.data_sum(row);
        if (k.weight_sum.defined()) v = v - a_zero * k.weight_sum(chunk, lane);
        if (k.data_sum.defined() && k.weight_sum.defined())
          v = v + te::make_int(kdim) * a_zero * b_zero;
        return v;
      },
      name, {}, "matmul_integer");
  return k;
}

}  // namespace lathe::topi
