// The x86 templates of topi/int8.h: TVM's conv2d_NCHWc_int8 and dense_vnni
// schedules, the dot product tensorized (schedule/tensorize_match.h).
#include <algorithm>

#include "support/error.h"
#include "topi/group_schedule.h"
#include "topi/int8.h"

namespace lathe::topi {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

constexpr int64_t kMaxRegN = 28;          // accumulators of one conv micro-kernel
constexpr int64_t kMaxOhTile = 4;         // output rows of one conv micro-kernel
constexpr int64_t kMaxOcTile = 4;         // channel blocks of one conv micro-kernel
constexpr int64_t kMaxDenseRows = 8;      // rows of one dense register tile
constexpr int64_t kMaxDenseChunks = 4;    // 16-column chunks of one dense register tile
constexpr int64_t kMaxAccumulators = 24;  // leaving registers for weights and broadcasts

// The root stages around a tensorized kernel: packing in parallel over
// their outer axes, sums at the root, the output in parallel and vectorized
// where its innermost axis allows.
void schedule_around(Schedule& s, const Int8Kernel& k, bool output_scheduled = false) {
  auto parallel_outer = [&](const Tensor& t, size_t fuse_count) {
    if (!t.defined() || !t.op().as_compute()) return;  // given packed: an input
    Stage st = s[t];
    std::vector<IterVar> ax = st.axis();
    fuse_count = std::min(fuse_count, ax.size());
    IterVar outer = ax[0];
    if (fuse_count > 1) outer = st.fuse(outer, ax[1]);
    for (size_t i = 2; i < fuse_count; ++i) outer = st.fuse(outer, ax[i]);
    st.parallel(outer);
    // The padded copy of the data: a row of whole channel blocks per step.
    if (t.ndim() == 5 && t.shape().back() >= 4) st.vectorize(ax.back());
  };
  parallel_outer(k.data, k.data.ndim() == 5 ? 3 : 1);
  parallel_outer(k.weights, 2);
  if (k.data_sum.defined()) parallel_outer(k.data_sum, k.data_sum.ndim() == 3 ? 2 : 1);
  if (output_scheduled || k.output.same_as(k.product)) return;
  Stage out = s[k.output];
  std::vector<IterVar> ax = out.axis();
  const int64_t last = k.output.shape().back();
  if (ax.size() >= 2) {
    // The axes but the last in parallel; the last in vectors.
    IterVar outer = ax[0];
    for (size_t i = 1; i + 1 < ax.size(); ++i) outer = out.fuse(outer, ax[i]);
    out.parallel(outer);
  }
  if (last % 16 == 0) {
    auto [o, i] = out.split(ax.back(), 16);
    out.vectorize(i);
  } else if (last <= 16 && ax.size() >= 2) {
    out.vectorize(ax.back());
  }
}

// The register tile of a fused conv: `rows` x `pixels` output pixels times
// `blocks` channel blocks of 16.
struct ConvRegisterTile {
  int64_t rows = 1, pixels = 1, blocks = 1;
  int64_t accumulators() const { return rows * pixels * blocks; }
};

// Whether the tile's accumulators, its weights and a broadcast fit `unit`'s
// vector registers. One weight vector stays in a register per block when
// there are several; a single block's is a memory operand of the product.
bool fits_registers(const ConvRegisterTile& t, const VectorUnit& unit) {
  const int64_t per_vector = unit.vectors_for(16);  // registers of 16 int32 lanes
  const int64_t registers = (t.accumulators() + (t.blocks > 1 ? t.blocks : 0)) * per_vector + 1;
  return t.accumulators() <= kMaxRegN && registers <= unit.registers;
}

// Two channel blocks where the channels divide into them (each pixel's
// broadcast then serves two dot products), the longest run of pixels along
// the row beside them, then as many rows as still fit; sizes divide the
// output, since a partial tile would read past the padded data. Sweeps of
// every tile on ResNet's convs (bench_int8_conv --sweep) put this within a
// few percent of the best for each; tiles of four blocks and short runs,
// though they load less per product, ran up to a third slower on some.
ConvRegisterTile default_conv_tile(int64_t oc_chunks, int64_t oh, int64_t ow,
                                   const VectorUnit& unit) {
  for (int64_t blocks : {int64_t{2}, int64_t{1}}) {
    if (oc_chunks % blocks != 0) continue;
    const std::vector<int64_t> runs = divisors(ow, kMaxRegN / blocks);
    for (auto pixels = runs.rbegin(); pixels != runs.rend(); ++pixels) {
      const std::vector<int64_t> heights = divisors(oh, kMaxOhTile);
      for (auto rows = heights.rbegin(); rows != heights.rend(); ++rows) {
        const ConvRegisterTile t{*rows, *pixels, blocks};
        if (fits_registers(t, unit)) return t;
      }
    }
  }
  return {};
}

}  // namespace

SearchSpace conv2d_int8_template(const Int8Kernel& k, const std::string& intrinsic) {
  const int64_t ow = k.product.shape()[3];
  SearchSpace space;
  space.name = "conv2d_int8.x86";
  space.knobs = {split_knob("tile_ow", ow, 2, kMaxRegN), choice_knob("unroll_kw", {0, 1})};
  const std::vector<int64_t> divs = divisors(ow, kMaxRegN);
  space.default_config =
      require_config(space, {{"tile_ow", {ow / divs.back(), divs.back()}}, {"unroll_kw", {0}}});
  const std::vector<Knob> knobs = space.knobs;
  space.apply = [k, knobs, intrinsic](Schedule& s, const Config& config) {
    const int64_t reg_n = knob_value(knobs, config, "tile_ow")[1];
    const bool unroll_kw = knob_int(knobs, config, "unroll_kw") != 0;
    schedule_around(s, k);
    Stage conv = s[k.product];
    std::vector<IterVar> ax = conv.axis(), r = conv.reduce_axis();
    // ax: n, oc_chunk, oh, ow, oc_block; r: rco, ry, rx, rcq, rcl.
    auto [ow_outer, ow_inner] = conv.split(ax[3], reg_n, "ow_outer", "ow_inner");
    conv.reorder({ax[0], ax[1], ax[2], ow_outer, r[0], r[1], r[2], r[3], ow_inner, ax[4], r[4]});
    conv.tensorize(ax[4], intrinsic);
    conv.unroll(ow_inner);
    if (unroll_kw) conv.unroll(r[2]);
    IterVar rows = conv.fuse(conv.fuse(ax[0], ax[1]), ax[2]);
    conv.parallel(rows);
  };
  return space;
}

SearchSpace conv2d_int8_fused_template(const Int8Kernel& k, const VectorUnit& unit,
                                       const std::string& intrinsic) {
  const auto& shape = k.product.shape();
  LATHE_CHECK(k.output.shape() == shape && !k.output.same_as(k.product),
              "conv2d_int8_fused_template: the output '", k.output.name(),
              "' is not an epilogue of the product's shape");
  const int64_t oc_chunks = shape[1], oh = shape[2], ow = shape[3];
  SearchSpace space;
  space.name = "conv2d_int8_fused.x86";
  space.knobs = {split_knob("tile_ow", ow, 2, kMaxRegN), split_knob("tile_oh", oh, 2, kMaxOhTile),
                 split_knob("tile_oc", oc_chunks, 2, kMaxOcTile), choice_knob("unroll_kw", {0, 1}),
                 choice_knob("rows_outer", {0, 1})};
  const std::vector<Knob> knobs = space.knobs;
  space.constraint = [knobs, unit](const Config& c) {
    return fits_registers({knob_value(knobs, c, "tile_oh")[1], knob_value(knobs, c, "tile_ow")[1],
                           knob_value(knobs, c, "tile_oc")[1]},
                          unit);
  };
  const ConvRegisterTile tile = default_conv_tile(oc_chunks, oh, ow, unit);
  // Which the threads share out: channel tiles (each thread reads all of the
  // input and its part of the weights) or row tiles (its part of the input
  // and all of the weights; where the layer before shared out rows too,
  // mostly rows it wrote itself). Rows where the weights are the smaller:
  // each thread then reads the fewer bytes.
  const int64_t rows_outer =
      k.data.defined() && k.weights.defined() && k.weights.numel() < k.data.numel() ? 1 : 0;
  space.default_config = require_config(space, {{"tile_ow", {ow / tile.pixels, tile.pixels}},
                                                {"tile_oh", {oh / tile.rows, tile.rows}},
                                                {"tile_oc", {oc_chunks / tile.blocks, tile.blocks}},
                                                {"unroll_kw", {0}},
                                                {"rows_outer", {rows_outer}}});
  space.apply = [k, knobs, intrinsic](Schedule& s, const Config& config) {
    const int64_t reg_n = knob_value(knobs, config, "tile_ow")[1];
    const int64_t rows = knob_value(knobs, config, "tile_oh")[1];
    const int64_t blocks = knob_value(knobs, config, "tile_oc")[1];
    const bool unroll_kw = knob_int(knobs, config, "unroll_kw") != 0;
    const bool rows_outer = knob_int(knobs, config, "rows_outer") != 0;
    schedule_around(s, k, true);
    // The output (the requantized epilogue) is the root stage: its tiles in
    // parallel (only n, oc_outer and oh_outer fused, so that the tile's
    // bounds stay a tile), each tile requantized in vectors of the channel
    // block right after its sums.
    Stage out = s[k.output];
    std::vector<IterVar> ax = out.axis();
    auto [oc_outer, oc_inner] = out.split(ax[1], blocks, "oc_outer", "oc_inner");
    auto [oh_outer, oh_inner] = out.split(ax[2], rows, "oh_outer", "oh_inner");
    auto [ow_outer, ow_inner] = out.split(ax[3], reg_n, "ow_outer", "ow_inner");
    if (rows_outer) {
      out.reorder({ax[0], oh_outer, oc_outer, ow_outer, oc_inner, oh_inner, ow_inner, ax[4]});
      out.parallel(out.fuse(out.fuse(ax[0], oh_outer), oc_outer));
    } else {
      out.reorder({ax[0], oc_outer, oh_outer, ow_outer, oc_inner, oh_inner, ow_inner, ax[4]});
      out.parallel(out.fuse(out.fuse(ax[0], oc_outer), oh_outer));
    }
    vectorize_pixel_blocks(out, ow_inner, reg_n, ax[4]);
    if (rows > 1) out.unroll(oh_inner);
    if (blocks > 1) out.unroll(oc_inner);
    // The product: a [blocks, rows, reg_n, 16] int32 tile per (row,
    // ow_outer), the accumulators LLVM keeps in vector registers over the
    // whole reduction. The blocks innermost but for the dot product: each
    // pixel's broadcast is loaded once for all of them.
    Stage conv = s[k.product];
    conv.compute_at(out, ow_outer);
    std::vector<IterVar> c = conv.axis(), r = conv.reduce_axis();
    // c: n, oc_chunk, oh, ow, oc_block; r: rco, ry, rx, rcq, rcl.
    conv.reorder({c[0], r[0], r[1], r[2], r[3], c[2], c[3], c[1], c[4], r[4]});
    conv.tensorize(c[4], intrinsic);
    conv.unroll(c[3]);
    if (rows > 1) conv.unroll(c[2]);
    if (blocks > 1) conv.unroll(c[1]);
    if (unroll_kw) conv.unroll(r[2]);
  };
  return space;
}

SearchSpace matmul_int8_template(const Int8Kernel& k, const std::string& intrinsic) {
  const int64_t rows = k.product.shape()[0], chunks = k.product.shape()[1];
  SearchSpace space;
  space.name = "dense_int8.x86";
  space.knobs = {split_knob("tile_y", rows, 2, kMaxDenseRows),
                 split_knob("tile_x", chunks, 2, kMaxDenseChunks)};
  const int64_t y = divisors(rows, kMaxDenseRows).back();
  int64_t x = 1;
  for (int64_t d : divisors(chunks, kMaxDenseChunks))
    if (d * y <= kMaxAccumulators) x = d;
  space.default_config =
      require_config(space, {{"tile_y", {rows / y, y}}, {"tile_x", {chunks / x, x}}});
  const std::vector<Knob> knobs = space.knobs;
  space.constraint = [knobs](const Config& c) {
    return knob_value(knobs, c, "tile_y")[1] * knob_value(knobs, c, "tile_x")[1] <=
           kMaxAccumulators;
  };
  space.apply = [k, knobs, intrinsic](Schedule& s, const Config& config) {
    const int64_t ty = knob_value(knobs, config, "tile_y")[1];
    const int64_t tx = knob_value(knobs, config, "tile_x")[1];
    schedule_around(s, k);
    Stage dense = s[k.product];
    std::vector<IterVar> ax = dense.axis(), r = dense.reduce_axis();
    // ax: row, n_chunk, n_block; r: rkq, rkl.
    auto [yo, yi] = dense.split(ax[0], ty, "row_outer", "row_inner");
    auto [xo, xi] = dense.split(ax[1], tx, "chunk_outer", "chunk_inner");
    dense.reorder({yo, xo, r[0], yi, xi, ax[2], r[1]});
    dense.tensorize(ax[2], intrinsic);
    dense.unroll(yi);
    dense.unroll(xi);
    dense.parallel(dense.fuse(yo, xo));
  };
  return space;
}

SearchSpace matmul_int8_tile_epilogue_template(const Int8Kernel& k, const Tensor& epilogue,
                                               const std::string& intrinsic) {
  const int64_t rows = k.product.shape()[0], chunks = k.product.shape()[1];
  const std::vector<int64_t>& shape = epilogue.shape();
  const size_t rank = shape.size();
  int64_t leading = 1;
  for (size_t d = 0; d + 1 < rank; ++d) leading *= shape[d];
  if (rank < 2 || leading != rows || shape.back() != chunks * k.lanes) return {};
  // The row axis: the innermost leading one longer than 1 (a [128, 1, N]
  // output has its rows first); the axes after it have extent 1.
  size_t row_axis = rank - 2;
  while (row_axis > 0 && shape[row_axis] == 1) --row_axis;
  const int64_t row_extent = shape[row_axis];
  SearchSpace space;
  space.name = "dense_int8.x86";
  space.knobs = {split_knob("tile_y", row_extent, 2, kMaxDenseRows),
                 split_knob("tile_x", chunks, 2, kMaxDenseChunks)};
  const int64_t y = divisors(row_extent, kMaxDenseRows).back();
  int64_t x = 1;
  for (int64_t d : divisors(chunks, kMaxDenseChunks))
    if (d * y <= kMaxAccumulators) x = d;
  space.default_config =
      require_config(space, {{"tile_y", {row_extent / y, y}}, {"tile_x", {chunks / x, x}}});
  const std::vector<Knob> knobs = space.knobs;
  space.constraint = [knobs](const Config& c) {
    return knob_value(knobs, c, "tile_y")[1] * knob_value(knobs, c, "tile_x")[1] <=
           kMaxAccumulators;
  };
  space.apply = [k, epilogue, row_axis, knobs, intrinsic](Schedule& s, const Config& config) {
    const int64_t ty = knob_value(knobs, config, "tile_y")[1];
    const int64_t tx = knob_value(knobs, config, "tile_x")[1];
    schedule_around(s, k);  // the packing and sums; k.output is the product
    Stage out = s[epilogue];
    const std::vector<IterVar> ax = out.axis();
    auto [ro, ri] = out.split(ax[row_axis], ty, "row_outer", "row_inner");
    auto [co, ci] = out.split(ax.back(), tx * k.lanes, "column_outer", "column_inner");
    std::vector<IterVar> order(ax.begin(), ax.begin() + static_cast<std::ptrdiff_t>(row_axis));
    order.insert(order.end(), {ro, co, ri});
    for (size_t d = row_axis + 1; d + 1 < ax.size(); ++d) order.push_back(ax[d]);
    order.push_back(ci);
    out.reorder(order);
    out.vectorize(out.split(ci, k.lanes).second);
    IterVar tile = out.fuse(ro, co);
    for (size_t d = row_axis; d-- > 0;) tile = out.fuse(ax[d], tile);
    out.parallel(tile);
    Stage dense = s[k.product];
    dense.compute_at(out, tile);
    const std::vector<IterVar> pax = dense.axis(), r = dense.reduce_axis();
    // pax: row, n_chunk, n_block (the tile's); r: rkq, rkl.
    dense.reorder({r[0], pax[0], pax[1], pax[2], r[1]});
    dense.tensorize(pax[2], intrinsic);
    dense.unroll(pax[0]);
    dense.unroll(pax[1]);
  };
  return space;
}

void schedule_depthwise_conv2d_integer_x86(Schedule& s, const Tensor& output,
                                           int64_t vector_lanes) {
  const te::ComputeOpNode* c = output.op().as_compute();
  LATHE_CHECK(c && !c->reduce_axis.empty(), "schedule_depthwise_conv2d_integer_x86: not a conv");
  Tensor padded = output.op().input_tensors()[0];
  for (const Tensor& t : output.op().input_tensors())
    if (t.op().as_compute()) padded = t;
  Stage pad = s[padded];
  std::vector<IterVar> pa = pad.axis();
  pad.parallel(pad.fuse(pa[0], pa[1]));
  Stage conv = s[output];
  std::vector<IterVar> ax = conv.axis(), r = conv.reduce_axis();
  const int64_t ow = output.shape()[3];
  IterVar rows = conv.fuse(ax[0], ax[1]);
  conv.parallel(rows);
  if (ow >= vector_lanes) {
    auto [xo, xi] = conv.split(ax[3], vector_lanes, "ow_outer", "ow_inner");
    conv.reorder({rows, ax[2], xo, r[0], r[1], xi});
    conv.unroll(r[1]);
    conv.vectorize(xi);
  }
}

}  // namespace lathe::topi
