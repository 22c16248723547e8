// StemConvInteger's compute and x86 template (topi/int8_stem.h).
//
// Why a kernel of its own: the packed conv (conv2d_int8_fused_template)
// reduces 4 input channels per 32-bit lane, so an RGB input is padded to 4
// channels (a quarter of every dot product wasted) and each (ky, kx) step is
// one dot product per pixel and block. Here a kernel row's KW·C contiguous
// bytes are the reduction (7x7 RGB: 21 bytes in 6 lanes of 4), and the
// register tile spans several 16-channel blocks as well as several pixels,
// so that each weight load serves the tile's pixels and each broadcast its
// blocks.
#include "topi/int8_stem.h"

#include <algorithm>
#include <utility>

#include "support/error.h"
#include "topi/group_schedule.h"

namespace lathe::topi {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::DataType;
using te::Expr;
using te::IterVar;
using te::Var;

const DataType kI32 = DataType::Int(32);
constexpr int64_t kMaxAccumulators = 28;  // of 32 vector registers: broadcasts, weights
// The default tile's: 28 accumulators beside a tile's weight vectors and
// broadcasts spill (measured 2x slower on the 7x7 and 3x3 RGB stems); 8 to
// 16 run at the same speed.
constexpr int64_t kDefaultAccumulators = 16;
constexpr int64_t kMaxBlocks = 4;
constexpr int64_t kMaxRows = 4;

// A zero point as an int32 expression: its one element, or the element for
// `channel` of a per-channel one; undefined for none.
Expr zero_point(const Tensor& z, const Expr& channel) {
  if (!z.defined()) return Expr();
  std::vector<Expr> index;
  if (z.ndim() == 1) index.push_back(z.shape()[0] == 1 ? te::make_int(0) : channel);
  return te::cast(kI32, z(index));
}

std::vector<te::Tensor> stem_conv_integer_compute(const ComputeContext& ctx) {
  const StemConvGeometry g = StemConvGeometry::of(ctx.attrs(), ctx.input_type(0).shape);
  const QuantOperand x = {ctx.input(0), ctx.has_input(3) ? ctx.input(3) : Tensor()};
  const QuantOperand w = {ctx.input(1), ctx.has_input(4) ? ctx.input(4) : Tensor()};
  const Tensor w_sum = ctx.has_input(2) ? ctx.input(2) : Tensor();
  return {stem_conv2d_integer(x, w, w_sum, g, ctx.name()).output};
}

// Its anchor is the corrected output; an epilogue of one output of its
// shape (the requantization) becomes the tile's root, else the anchor is.
SearchSpace stem_conv_integer_template(const Tensor& anchor, const std::vector<Tensor>& outputs,
                                       const VectorUnit&) {
  Int8Kernel k = int8_kernel_of(anchor);
  const bool fused =
      outputs.size() == 1 && !outputs[0].same_as(anchor) && outputs[0].shape() == anchor.shape();
  if (fused) k.output = outputs[0];
  SearchSpace space = stem_conv2d_int8_template(k);
  if (fused) return with_tile_epilogue(std::move(space), anchor, outputs);
  return with_epilogue(std::move(space), anchor, outputs);
}

}  // namespace

Int8Kernel stem_conv2d_integer(const QuantOperand& x, const QuantOperand& w,
                               const Tensor& weight_sum, const StemConvGeometry& g,
                               const std::string& name) {
  const char* op = "StemConvInteger";
  LATHE_CHECK(x.value.ndim() == 4 && x.value.shape()[1] == g.channels &&
                  x.value.shape()[2] == g.height && x.value.shape()[3] == g.width &&
                  x.value.dtype() == DataType::UInt(8) && w.value.ndim() == 5 &&
                  w.value.dtype() == DataType::Int(8) && w.value.shape()[1] == g.kernel_h &&
                  w.value.shape()[2] == g.quads() && w.value.shape()[3] == kInt8Lanes &&
                  w.value.shape()[4] == kInt8Group,
              op, ": needs uint8 data [N, C, H, W] and int8 weights [OC/16, KH, Q, 16, 4]");
  const int64_t n = x.value.shape()[0];
  const int64_t ocb = w.value.shape()[0], kh = g.kernel_h, q = g.quads();
  const int64_t oh = g.output_height(), ow = g.output_width();
  const int64_t pixel_step = g.stride_w * g.channels, taps = g.kernel_w * g.channels;
  LATHE_CHECK(oh > 0 && ow > 0, op, ": empty output");
  const Expr x_zero = zero_point(x.zero_point, Expr());
  const Expr w_zero_probe = zero_point(w.zero_point, Var("oc"));

  Int8Kernel k;
  k.lanes = kInt8Lanes;
  // The padded NHWC rows [N, rows, pixels, C], every padded byte the zero
  // point (a padded tap then adds zero), also past the right padding where
  // a window's last 4-byte group reads beyond its KW·C bytes.
  const int64_t rows = g.row_count(), pixels = g.row_pixels();
  const Expr fill = te::cast(DataType::UInt(8), x_zero.defined() ? x_zero : te::make_int(0));
  k.data = te::compute({n, rows, pixels, g.channels},
                       [&](const std::vector<Var>& i) {
                         Expr y = i[1] - te::make_int(g.pad_top),
                              xx = i[2] - te::make_int(g.pad_left);
                         Expr inside;
                         auto both = [&](Expr c) { inside = inside.defined() ? (inside && c) : c; };
                         if (g.pad_top) both(y >= 0);
                         if (rows - g.pad_top > g.height) both(y < te::make_int(g.height));
                         if (g.pad_left) both(xx >= 0);
                         if (pixels - g.pad_left > g.width) both(xx < te::make_int(g.width));
                         Expr v = x.value(i[0], i[3], y, xx);
                         return inside.defined() ? te::select(inside, v, fill) : v;
                       },
                       name + "_rows", {"n", "h", "w", "c"});
  // Byte `j` of row `y`: the NHWC data read as rows of pixels·C bytes.
  auto row_byte = [&](const Expr& batch, const Expr& y, const Expr& j) {
    if (g.channels == 1) return k.data(batch, y, j, te::make_int(0));
    return k.data(batch, y, j / te::make_int(g.channels), j % te::make_int(g.channels));
  };
  k.weights = w.value;
  IterVar ry = te::reduce_axis(kh, "ry"), rq = te::reduce_axis(q, "rq"),
          rl = te::reduce_axis(kInt8Group, "rl");
  k.product = te::compute(
      {n, ocb, oh, ow, kInt8Lanes},
      [&](const std::vector<Var>& i) {
        Expr a = row_byte(
            i[0], i[2] * te::make_int(g.stride_h) + ry.var() * te::make_int(g.dilation_h),
            i[3] * te::make_int(pixel_step) + rq.var() * te::make_int(kInt8Group) + rl.var());
        Expr b = k.weights(i[1], ry.var(), rq.var(), i[4], rl.var());
        return te::sum(te::cast(kI32, a) * te::cast(kI32, b), {ry, rq, rl});
      },
      name + "_product", {"n", "oc_chunk", "oh", "ow", "oc_block"}, "conv2d_stem_int8");
  if (x_zero.defined() && weight_sum.defined()) {
    k.weight_sum = weight_sum;
  } else if (x_zero.defined()) {
    IterVar sy = te::reduce_axis(kh, "ry"), sq = te::reduce_axis(q, "rq"),
            sl = te::reduce_axis(kInt8Group, "rl");
    k.weight_sum = te::compute(
        {ocb, kInt8Lanes},
        [&](const std::vector<Var>& i) {
          return te::sum(te::cast(kI32, k.weights(i[0], sy.var(), sq.var(), i[1], sl.var())),
                         {sy, sq, sl});
        },
        name + "_weight_sum", {"oc_chunk", "oc_block"});
  }
  if (w_zero_probe.defined()) {
    // Σx over the window's real bytes only: those past KW·C are the next
    // pixel's, which the zero weights leave out of the product.
    IterVar sy = te::reduce_axis(kh, "ry"), sj = te::reduce_axis(taps, "rj");
    k.data_sum = te::compute(
        {n, oh, ow},
        [&](const std::vector<Var>& i) {
          return te::sum(te::cast(kI32, row_byte(i[0],
                                                 i[1] * te::make_int(g.stride_h) +
                                                     sy.var() * te::make_int(g.dilation_h),
                                                 i[2] * te::make_int(pixel_step) + sj.var())),
                         {sy, sj});
        },
        name + "_data_sum", {"n", "oh", "ow"});
  }
  // sum (x - xz)(w - wz) = sum x w - wz sum x - xz sum w + K xz wz.
  k.output = te::compute(
      k.product.shape(),
      [&](const std::vector<Var>& i) {
        Expr v = k.product(i[0], i[1], i[2], i[3], i[4]);
        const Expr w_zero = zero_point(w.zero_point, i[1] * te::make_int(kInt8Lanes) + i[4]);
        if (k.data_sum.defined()) v = v - w_zero * k.data_sum(i[0], i[2], i[3]);
        if (k.weight_sum.defined()) v = v - x_zero * k.weight_sum(i[1], i[4]);
        if (k.data_sum.defined() && k.weight_sum.defined())
          v = v + te::make_int(kh * taps) * x_zero * w_zero;
        return v;
      },
      name, {"n", "oc_chunk", "oh", "ow", "oc_block"}, "stem_conv_integer");
  return k;
}

SearchSpace stem_conv2d_int8_template(const Int8Kernel& k, const std::string& intrinsic) {
  const auto& shape = k.product.shape();
  LATHE_CHECK(k.output.shape() == shape, "stem_conv2d_int8_template: the output '", k.output.name(),
              "' is not of the product's shape");
  const int64_t ocb = shape[1], oh = shape[2], ow = shape[3];
  SearchSpace space;
  space.name = "stem_conv2d_int8.x86";
  space.knobs = {split_knob("tile_oc", ocb, 2, kMaxBlocks), split_knob("tile_oh", oh, 2, kMaxRows),
                 split_knob("tile_ow", ow, 2, kMaxAccumulators), choice_knob("unroll_q", {0, 1})};
  const std::vector<Knob> knobs = space.knobs;
  space.constraint = [knobs](const Config& c) {
    return knob_value(knobs, c, "tile_oc")[1] * knob_value(knobs, c, "tile_oh")[1] *
               knob_value(knobs, c, "tile_ow")[1] <=
           kMaxAccumulators;
  };
  // The most blocks: a broadcast then feeds that many dot products. Then
  // the longest run of pixels, then rows, that the accumulators hold.
  const int64_t blocks = divisors(ocb, kMaxBlocks).back();
  const int64_t pixels = divisors(ow, kDefaultAccumulators / blocks).back();
  int64_t rows = 1;
  for (int64_t d : divisors(oh, kMaxRows))
    if (d * pixels * blocks <= kDefaultAccumulators) rows = d;
  space.default_config = require_config(space, {{"tile_oc", {ocb / blocks, blocks}},
                                                {"tile_oh", {oh / rows, rows}},
                                                {"tile_ow", {ow / pixels, pixels}},
                                                {"unroll_q", {0}}});
  space.apply = [k, knobs, intrinsic](Schedule& s, const Config& config) {
    const int64_t blocks = knob_value(knobs, config, "tile_oc")[1];
    const int64_t rows = knob_value(knobs, config, "tile_oh")[1];
    const int64_t pixels = knob_value(knobs, config, "tile_ow")[1];
    const bool unroll_q = knob_int(knobs, config, "unroll_q") != 0;
    // The rows at the root, in parallel over them.
    if (k.data.op().as_compute()) {
      Stage rows = s[k.data];
      const std::vector<IterVar> ra = rows.axis();
      IterVar row = rows.fuse(ra[0], ra[1]);
      rows.parallel(row);
      // One channel: each row's pixels in vectors (C bytes apart, more
      // channels store scattered, measured slower than the scalar copy).
      if (k.data.shape()[3] == 1 && k.data.shape()[2] >= kInt8Lanes) {
        auto [wo, wi] = rows.split(ra[2], kInt8Lanes, "w_outer", "w_lanes");
        rows.reorder({row, wo, ra[3], wi});
        rows.unroll(ra[3]);
        rows.vectorize(wi);
      }
    }
    // The sums of the zero points' terms at the root, in parallel.
    for (const Tensor& t : {k.data_sum, k.weight_sum}) {
      if (!t.defined() || !t.op().as_compute()) continue;
      Stage st = s[t];
      st.parallel(st.axis()[0]);
    }
    // The output tiles: [blocks, rows, pixels, 16] a step of the
    // parallel rows, vectorized over pixels' channel blocks.
    Stage out = s[k.output];
    std::vector<IterVar> ax = out.axis();
    auto [oc_outer, oc_inner] = out.split(ax[1], blocks, "oc_outer", "oc_inner");
    auto [oh_outer, oh_inner] = out.split(ax[2], rows, "oh_outer", "oh_inner");
    auto [ow_outer, ow_inner] = out.split(ax[3], pixels, "ow_outer", "ow_inner");
    out.reorder({ax[0], oc_outer, oh_outer, ow_outer, oc_inner, oh_inner, ow_inner, ax[4]});
    out.parallel(out.fuse(out.fuse(ax[0], oc_outer), oh_outer));
    vectorize_pixel_blocks(out, ow_inner, pixels, ax[4]);
    if (blocks > 1) out.unroll(oc_inner);
    if (rows > 1) out.unroll(oh_inner);
    // The product per tile, the reduction outside the tile's points: each
    // (ky, q) step loads `blocks` weight vectors and broadcasts
    // rows x pixels 4-byte groups of the rows.
    Stage conv = s[k.product];
    conv.compute_at(out, ow_outer);
    std::vector<IterVar> c = conv.axis(), r = conv.reduce_axis();
    // c: n, oc_chunk, oh, ow, oc_block; r: ry, rq, rl.
    conv.reorder({c[0], r[0], r[1], c[1], c[2], c[3], c[4], r[2]});
    conv.tensorize(c[4], intrinsic);
    if (blocks > 1) conv.unroll(c[1]);
    if (rows > 1) conv.unroll(c[2]);
    if (pixels > 1) conv.unroll(c[3]);
    if (unroll_q) conv.unroll(r[1]);
  };
  return space;
}

void register_int8_stem_computes(OpStrategyRegistry& registry) {
  registry.define_compute("StemConvInteger", stem_conv_integer_compute);
  registry.define_template("StemConvInteger", stem_conv_integer_template);
}

}  // namespace lathe::topi
