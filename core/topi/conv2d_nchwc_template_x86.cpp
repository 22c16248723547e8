// The Conv2dNCHWc template and its depthwise form (declared in
// topi/nn_schedule_x86.h).
#include <algorithm>
#include <tuple>

#include "support/error.h"
#include "support/int_math.h"
#include "topi/generic_template.h"
#include "topi/nn.h"
#include "topi/nn_schedule_x86.h"

namespace lathe::topi {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

// Default output pixels per micro-kernel, at most: reg_n accumulator vectors
// per channel block (14 x 2 blocks fill AVX-512's 32 registers with the
// kernel vectors and a broadcast).
constexpr int64_t kConvRegN = 14;
// Options: a micro-kernel of reg_n pixels x tile_oc channel blocks x tile_oh
// rows keeps that many accumulators, each of as many vectors as a channel
// block takes (one where the layout pass blocked channels by the target's
// vectors). Its innermost loop runs over the channel blocks, so one input
// broadcast serves tile_oc FMAs and is dead after them: the target's vector
// registers (32 on AVX-512, 16 on AVX2) hold the accumulators, the tile_oc
// kernel vectors and one broadcast. Each config is checked against that (the
// space's constraint), so small reg_n may go with large channel and row tiles.
constexpr int64_t kMaxRegN = 28, kMaxDepthwiseRegN = 28;
constexpr int64_t kMaxOcTile = 4, kMaxOhTile = 4;
// The stationary order keeps the accumulators of a whole output plane (per
// channel tile) in the L1 cache: at most this many bytes.
constexpr int64_t kStationaryPlaneBytes = 32 * 1024, kStationaryRegN = 7;
// The row-blocked order's default gives the threads at least this many
// parallel rows where the rows' pixel chunks can be split that far.
constexpr int64_t kMinParallelRows = 16;
// The fewest accumulators (pixels x channel blocks) for which the default
// keeps a grouped conv's window taps innermost (see conv_space).
constexpr int64_t kMinTapsAccumulators = 4;
// Row blocks under this many pixels, where the row's divisors give no more,
// give way to ragged blocks (add_ragged_row_blocks).
constexpr int64_t kMinRaggedRegN = 4;

struct ConvKnobs {
  std::vector<int64_t> tile_ow;  // parallel part, chunks, reg_n
  int64_t tile_oc = 1, tile_oh = 1;
  std::vector<int64_t> tile_ic;  // outer, inner (empty: depthwise)
  bool unroll_kw = false, unroll_kh = false;
  // The window row's taps innermost of the reduction, inside an input
  // block's channels and unrolled: each input vector then serves every tap
  // that reads it (see conv_space).
  bool taps_inner = false;
  bool pad_root = true;
  bool stationary = false;  // weights-stationary order (see schedule_stationary)
  bool prefetch = false;    // stationary: the next input-channel block's weights
  // Row blocks: the padded input computed inside each parallel row, the rows
  // that row reads, instead of in a parallel pass of its own before the conv.
  bool pad_rows = false;
  int64_t vector_lanes = 16;  // the target's, for the stages not tiled
};

ConvKnobs decode(const std::vector<Knob>& knobs, const Config& config, bool depthwise) {
  ConvKnobs k;
  k.tile_ow = knob_value(knobs, config, "tile_ow");
  if (depthwise) {
    const int64_t unroll = knob_int(knobs, config, "unroll_kernel");
    k.unroll_kw = unroll >= 1;
    k.unroll_kh = unroll >= 2;
    k.pad_root = knob_int(knobs, config, "pad_root") != 0;
    return k;
  }
  k.tile_oc = knob_int(knobs, config, "tile_oc");
  k.tile_oh = knob_int(knobs, config, "tile_oh");
  k.tile_ic = knob_value(knobs, config, "tile_ic");
  k.unroll_kw = knob_int(knobs, config, "unroll_kw") != 0;
  k.unroll_kh = knob_int(knobs, config, "unroll_kh") != 0;
  k.taps_inner = knob_int(knobs, config, "taps_inner") != 0;
  k.stationary = knob_int(knobs, config, "stationary") != 0;
  k.prefetch = knob_int(knobs, config, "prefetch") != 0;
  k.pad_rows = knob_int(knobs, config, "pad_rows") != 0;
  return k;
}

// The micro-kernel's innermost loops, in the accumulating stage: the
// unrolled accumulator vectors (tile_oh rows x reg_n pixels x tile_oc channel
// blocks, each input value broadcast against the output-channel vectors) and
// the kernel window unrolled as the knobs say.
// The input-channel-block loop split as tile_ic = [blocks outside the window
// rows, blocks inside them]; the side whose factor is 1 stays undefined.
std::pair<IterVar, IterVar> split_input_channels(Stage acc, const IterVar& ic,
                                                 const std::vector<int64_t>& tile_ic) {
  if (tile_ic[1] == 1) return {ic, IterVar()};
  if (tile_ic[0] == 1) return {IterVar(), ic};
  return acc.split(ic, tile_ic[1], "rco_outer", "rco_inner");
}

void unroll_micro_kernel(Stage acc, const IterVar& oh_inner, const IterVar& oc_inner,
                         const IterVar& ow_block, const IterVar& vector, const IterVar& ry,
                         const IterVar& rx, const ConvKnobs& k) {
  acc.unroll(ow_block);
  acc.vectorize(vector);
  if (k.tile_oh > 1) acc.unroll(oh_inner);
  if (k.tile_oc > 1) acc.unroll(oc_inner);
  if (k.unroll_kh) acc.unroll(ry);
  if (k.unroll_kw || k.taps_inner) acc.unroll(rx);
}

// Row-blocked order (TVM's conv2d_NCHWc): (n, oc_chunk, oh[, ow_outer]) in
// parallel, each row in blocks of reg_n pixels whose channel block is one
// vector, the whole reduction inside each block. With pad_rows the channel
// chunks go inside the parallel (n, oh[, ow_outer]) rows, so that one padded
// slice of input serves all of a row's channels. Returns the parallel loop.
IterVar schedule_row_blocks(Schedule& sch, TileStages& t, const ConvKnobs& k) {
  std::vector<IterVar> ax = t.loops.axis();
  IterVar row = ax[3], ow_outer;
  if (k.tile_ow[0] > 1) {
    auto [o, i] = t.loops.split(ax[3], k.tile_ow[1] * k.tile_ow[2], "ow_outer", "ow_inner");
    ow_outer = o;
    row = i;
  }
  auto [ow_chunk, ow_block] = t.loops.split(row, k.tile_ow[2], "ow_chunk", "ow_block");
  IterVar oc = ax[1], oc_inner, oh = ax[2], oh_inner;
  if (k.tile_oc > 1)
    std::tie(oc, oc_inner) = t.loops.split(ax[1], k.tile_oc, "oc_outer", "oc_inner");
  if (k.tile_oh > 1)
    std::tie(oh, oh_inner) = t.loops.split(ax[2], k.tile_oh, "oh_outer", "oh_inner");
  std::vector<IterVar> order = k.pad_rows ? std::vector<IterVar>{ax[0], oh, ow_outer, oc}
                                          : std::vector<IterVar>{ax[0], oc, oh, ow_outer};
  for (const IterVar& v : {ow_chunk, oh_inner, oc_inner, ow_block, ax[4]}) order.push_back(v);
  std::erase_if(order, [](const IterVar& v) { return !v.defined(); });
  t.loops.reorder(order);
  IterVar rows = k.pad_rows ? t.loops.fuse(ax[0], oh) : t.loops.fuse(t.loops.fuse(ax[0], oc), oh);
  if (ow_outer.defined()) rows = t.loops.fuse(rows, ow_outer);
  t.loops.parallel(rows);
  t.loops.vectorize(ax[4]);

  attach_path(t.path, sch, t.loops, ow_chunk);
  t.acc.compute_at(t.loops, ow_chunk);
  std::vector<IterVar> a = t.acc.axis(), r = t.acc.reduce_axis();
  std::vector<IterVar> acc_order = {a[0]};
  if (k.tile_oc == 1) acc_order.push_back(a[1]);
  if (k.tile_oh == 1) acc_order.push_back(a[2]);
  // Reduce axes: (ry, rx) for depthwise, else (rco, ry, rx, rci) with rco
  // split by tile_ic around the kernel window.
  IterVar ry = r.size() == 4 ? r[1] : r[0], rx = r.size() == 4 ? r[2] : r[1];
  if (r.size() == 2) {
    acc_order.insert(acc_order.end(), {ry, rx});
  } else {
    // The input-channel blocks tile_ic puts outside the window row, the
    // row's taps, the blocks inside them and a block's channels (TVM's
    // order); with taps_inner the taps go innermost.
    const auto [ic_outer, ic_inner] = split_input_channels(t.acc, r[0], k.tile_ic);
    std::vector<IterVar> reduction = {ic_outer, ry};
    if (!k.taps_inner) reduction.push_back(rx);
    reduction.insert(reduction.end(), {ic_inner, r[3]});
    if (k.taps_inner) reduction.push_back(rx);
    for (const IterVar& v : reduction)
      if (v.defined()) acc_order.push_back(v);
  }
  // The channel blocks inside the pixels: LLVM loads each input value once
  // for all of them, and with the pixels inside, all reg_n broadcasts would
  // stay live for the next channel block (spilling from tile_oc 2 x reg_n 14).
  if (k.tile_oh > 1) acc_order.push_back(a[2]);
  acc_order.push_back(a[3]);
  if (k.tile_oc > 1) acc_order.push_back(a[1]);
  acc_order.push_back(a[4]);
  t.acc.reorder(acc_order);
  unroll_micro_kernel(t.acc, a[2], a[1], a[3], a[4], ry, rx, k);
  return rows;
}

// The conv's weights: its input that is no padding stage, a placeholder.
te::Tensor conv_kernel(const te::Operation& conv) {
  for (const te::Tensor& in : conv.input_tensors())
    if (!in.op().as_compute()) return in;
  lathe::fail("Conv2dNCHWc template: the conv reads no weight tensor");
}

// Weights-stationary order, for small output planes with many weights
// (ResNet's last stages, where the weights outgrow the L2 cache): (n,
// oc_outer) in parallel, the accumulator one whole output plane of the
// tile_oc channel blocks (in L1), and the input-channel blocks (tile_ic's
// outer part) outside the rows. Each block of weights then comes from memory
// once and serves every row; the row-blocked order reads all the weights
// again for each row, from memory when they do not fit in L2.
void schedule_stationary(Schedule& sch, TileStages& t, const ConvKnobs& k) {
  std::vector<IterVar> ax = t.loops.axis();
  IterVar oc = ax[1], oc_inner;
  if (k.tile_oc > 1)
    std::tie(oc, oc_inner) = t.loops.split(ax[1], k.tile_oc, "oc_outer", "oc_inner");
  std::vector<IterVar> order = {ax[0], oc};
  if (oc_inner.defined()) order.push_back(oc_inner);
  order.insert(order.end(), {ax[2], ax[3], ax[4]});
  t.loops.reorder(order);
  IterVar planes = t.loops.fuse(ax[0], oc);
  t.loops.parallel(planes);
  t.loops.vectorize(ax[4]);

  attach_path(t.path, sch, t.loops, planes);
  t.acc.compute_at(t.loops, planes);
  std::vector<IterVar> a = t.acc.axis(), r = t.acc.reduce_axis();
  const IterVar ry = r[1], rx = r[2];
  auto [ow_chunk, ow_block] = t.acc.split(a[3], k.tile_ow[2], "ow_chunk", "ow_block");
  IterVar oh = a[2], oh_inner;
  if (k.tile_oh > 1) std::tie(oh, oh_inner) = t.acc.split(a[2], k.tile_oh, "oh_outer", "oh_inner");
  const auto [ic_outer, ic_inner] = split_input_channels(t.acc, r[0], k.tile_ic);
  std::vector<IterVar> acc_order = {a[0]};
  if (k.tile_oc == 1) acc_order.push_back(a[1]);
  const IterVar taps_outer = k.taps_inner ? IterVar() : rx,
                taps_inner = k.taps_inner ? rx : IterVar();
  for (const IterVar& v :
       {ic_outer, oh, ow_chunk, ry, taps_outer, ic_inner, r[3], taps_inner, oh_inner, ow_block})
    if (v.defined()) acc_order.push_back(v);
  if (k.tile_oc > 1) acc_order.push_back(a[1]);  // inside the pixels, as in the row blocks
  acc_order.push_back(a[4]);
  t.acc.reorder(acc_order);
  unroll_micro_kernel(t.acc, oh_inner, a[1], ow_block, a[4], ry, rx, k);
  // The first row of a block is the only one that reads its weights, a burst
  // of misses when they come from memory; fetching the next block's while
  // this one's rows run spreads those reads over the whole block.
  if (k.prefetch) t.acc.prefetch(conv_kernel(t.acc.op()), ic_outer, 1);
}

// The padding stage the conv reads, when the group computes one (and it is no output).
te::Tensor conv_pad(const te::Tensor& conv, const std::vector<te::Tensor>& outputs) {
  for (const te::Tensor& in : conv.op().input_tensors())
    if (tag_of(in) == "pad" && !is_output(outputs, in)) return in;
  return {};
}

void apply_conv(Schedule& sch, const te::Tensor& conv, const std::vector<te::Tensor>& outputs,
                const ConvKnobs& k) {
  OpSet done = {conv.op()};
  const te::Tensor pad = k.pad_root ? conv_pad(conv, outputs) : te::Tensor();
  if (pad.defined()) {
    if (!k.pad_rows) schedule_pad(sch[pad], true);
    done.insert(pad.op());
  }
  TileStages t = tile_stages(sch, conv, outputs, done);
  if (k.stationary) {
    schedule_stationary(sch, t, k);
  } else {
    const IterVar rows = schedule_row_blocks(sch, t, k);
    if (pad.defined() && k.pad_rows) {
      // After the conv's own compute_at: the rows loop encloses it.
      Stage p = sch[pad];
      p.compute_at(t.loops, rows);
      if (pad.shape().back() > 1) p.vectorize(p.axis().back());
    }
  }
  schedule_remaining(sch, done, k.vector_lanes);
}

// Vector registers a micro-kernel of reg_n pixels x tile_oc channel blocks x
// tile_oh rows holds: its accumulators, the kernel vectors of `taps` taps
// per channel block (one; a window row's with taps_inner) and one broadcast
// input.
int64_t micro_kernel_registers(int64_t reg_n, int64_t tile_oc, int64_t tile_oh,
                               int64_t block_vectors, int64_t taps = 1) {
  return (reg_n * tile_oh + taps) * tile_oc * block_vectors + 1;
}

// Broadcast inputs a micro-kernel keeps live besides its current one when
// LLVM unrolls the whole kernel window (kw taps x ic_block channels) and
// windows overlap (stride < kw): the input under pixel p at tap r is pixel
// p + 1's at tap r - stride, so GVN keeps each such broadcast until its last
// tap, about min(stride, kw - stride) positions x ic_block channels for every
// pixel after the first. A first conv's 3-channel 3x3 stride-2 window held 9
// of them in a 4-pixel kernel and spilled on AVX2. Windows of more than
// kUnrolledWindow taps x channels stay a loop (ResNet's 3x3 over 8 channels
// keeps nothing live across taps).
constexpr int64_t kUnrolledWindow = 16;

int64_t overlap_broadcasts_per_pixel(int64_t kw, int64_t stride_w, int64_t ic_block) {
  if (stride_w >= kw || kw * ic_block > kUnrolledWindow) return 0;
  return std::min(stride_w, kw - stride_w) * ic_block;
}

// A row whose width has no divisor of kMinRaggedRegN to kMaxRegN pixels.
bool sliver_row(int64_t ow) {
  return ow > kMinRaggedRegN && largest_divisor(ow, kMaxRegN) < kMinRaggedRegN;
}

// The divisor of a row of `ow` pixels nearest `target`, the smaller one of
// two as near: a 16-pixel row's 8 for a target of 7, where the largest
// divisor under it (4) leaves half the accumulators a micro-kernel of 7 has.
int64_t nearest_divisor(int64_t ow, int64_t target) {
  const int64_t below = largest_divisor(ow, target);
  int64_t above = target + 1;
  while (above < ow && ow % above != 0) ++above;
  return above <= ow && above - target < target - below ? above : below;
}

// The default micro-kernel of one output row: the most accumulators within
// the register file less one spare (the next broadcast loads while the last
// FMAs of the current one run; with all 16 of AVX2's registers taken, LLVM
// spilled in the inner loop), counting the overlap's live broadcasts, reg_n a
// divisor of the row of at most `max_reg_n` (with `nearest`, the divisor
// nearest it), two channel blocks where the blocks pair up and that fits as
// many (each broadcast then feeds two FMAs). {reg_n, tile_oc}.
std::pair<int64_t, int64_t> default_micro_kernel(int64_t ow, int64_t oc_chunks, int64_t max_reg_n,
                                                 int64_t block_vectors, int64_t overlap,
                                                 int64_t taps, bool nearest, const VectorUnit& vu) {
  auto registers = [&](int64_t reg_n, int64_t tile_oc) {
    return micro_kernel_registers(reg_n, tile_oc, 1, block_vectors, taps) + (reg_n - 1) * overlap;
  };
  std::pair<int64_t, int64_t> best = {1, 1};
  // A row whose divisors under max_reg_n are poor (13 pixels: only 1) may
  // take a wider divisor (the whole row) where the registers hold it.
  const bool poor = 2 * largest_divisor(ow, max_reg_n) < max_reg_n;
  for (int64_t limit :
       poor ? std::vector<int64_t>{max_reg_n, kMaxRegN} : std::vector<int64_t>{max_reg_n})
    for (int64_t tile_oc : {2, 1}) {
      if (oc_chunks % tile_oc != 0) continue;
      int64_t reg_n = nearest ? nearest_divisor(ow, limit) : largest_divisor(ow, limit);
      while (reg_n > 1 && registers(reg_n, tile_oc) > vu.registers - 1)
        reg_n = largest_divisor(ow, reg_n - 1);
      // Not even one pixel of two channel blocks where a long window row's
      // taps take most registers.
      if (registers(reg_n, tile_oc) > vu.registers - 1) continue;
      if (reg_n * tile_oc > best.first * best.second) best = {reg_n, tile_oc};
    }
  // Still a sliver (61 pixels, a prime: blocks of 1; 62: of 2): blocks that
  // do not divide the row, the last one guarded (ragged_row_blocks).
  if (sliver_row(ow))
    for (int64_t tile_oc : {2, 1}) {
      if (oc_chunks % tile_oc != 0) continue;
      int64_t reg_n = std::min(max_reg_n, ow - 1);
      while (reg_n > kMinRaggedRegN && registers(reg_n, tile_oc) > vu.registers - 1) --reg_n;
      if (registers(reg_n, tile_oc) <= vu.registers - 1 && ow % reg_n != 0 &&
          reg_n * tile_oc > best.first * best.second)
        best = {reg_n, tile_oc};
    }
  return best;
}

// Row blocks of reg_n pixels that do not divide the row's width, for rows
// whose divisors are slivers: [1, ceil(ow / reg_n), reg_n], the last block
// guarded, which loop_partition keeps out of the others. A TextCNN's conv
// over 61 positions ran 2.2x faster in blocks of 8 than of 1.
void add_ragged_row_blocks(Knob& tile_ow, int64_t ow) {
  if (!sliver_row(ow)) return;
  for (int64_t reg_n = kMinRaggedRegN; reg_n <= std::min(kMaxRegN, ow - 1); ++reg_n)
    if (ow % reg_n != 0) tile_ow.options.push_back({1, ceildiv(ow, reg_n), reg_n});
}

SearchSpace conv_space(const te::Tensor& conv, const std::vector<te::Tensor>& outputs,
                       const VectorUnit& vu) {
  const std::vector<int64_t>& shape = conv.shape();  // n, oc_chunk, oh, ow, oc_block
  const int64_t block_vectors = vu.vectors_for(shape[4]);
  const int64_t ic_chunks = reduce_extent(conv, 0), kh = reduce_extent(conv, 1),
                kw = reduce_extent(conv, 2);
  SearchSpace space;
  space.name = "conv2d_NCHWc.x86";
  // The reduction order only matters around a kernel window.
  Knob tile_ic =
      kh * kw > 1 ? split_knob("tile_ic", ic_chunks, 2) : Knob{"tile_ic", {{ic_chunks, 1}}};
  auto on_off = [](bool both) {
    return both ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0};
  };
  // Bytes of one channel block's output plane: the stationary order's
  // accumulator per channel tile.
  const int64_t plane_bytes = shape[2] * shape[3] * shape[4] * 4;
  // Rows of padded input per output row: pad_rows copies each padded row
  // about kh / stride times, once for each output row that reads it.
  const te::Tensor pad = conv_pad(conv, outputs);
  // The window's strides, from the input as it reads it (padded or not):
  // n, ic_chunk, ih, iw, ic_block.
  const std::vector<int64_t>& input = conv.op().input_tensors()[0].shape();
  auto stride = [&](size_t axis, int64_t k) {
    return input.size() == 5 && shape[axis] > 1
               ? std::max<int64_t>(1, (input[axis] - k) / (shape[axis] - 1))
               : 1;
  };
  const int64_t stride_h = stride(2, kh), stride_w = stride(3, kw);
  // A grouped conv with whole groups in a channel block (group width 8 in
  // blocks of 16) builds each input vector from one value per group, a
  // shuffle per input vector where a dense conv broadcasts for free. With
  // the window row's taps innermost (taps_inner), LLVM builds the vector of
  // each input pixel once for every tap that reads it: kw / stride FMAs per
  // shuffle instead of one. RegNetY-400MF's group-8 3x3 convs over 208
  // channels ran 1.07-1.2x faster that way (alternate runs on a loaded
  // 2-core machine), its stride-2 one over 48 channels about as fast.
  const int64_t input_channels = input.size() == 5 ? input[1] * input[4] : 0;
  const int64_t group_channels = ic_chunks * reduce_extent(conv, 3);
  const bool groups_in_block = group_channels < input_channels && group_channels < shape[4];
  // taps_inner keeps a window row's kernel vectors live beside the
  // accumulators: a row of more taps than the registers hold beside one
  // accumulator and a broadcast (a Wav2Vec2 positional conv's 32 taps on
  // AVX-512's 32 registers) has no such micro-kernel, nor the option.
  const bool taps_fit =
      kw > 1 && micro_kernel_registers(1, 1, 1, block_vectors, kw) <= vu.registers;
  Knob tile_ow = split_knob("tile_ow", shape[3], 3, kMaxRegN);
  add_ragged_row_blocks(tile_ow, shape[3]);
  space.knobs = {tile_ow,
                 choice_knob("tile_oc", divisors(shape[1], kMaxOcTile)),
                 choice_knob("tile_oh", divisors(shape[2], kMaxOhTile)),
                 tile_ic,
                 choice_knob("unroll_kw", on_off(kw > 1)),
                 choice_knob("unroll_kh", on_off(kh > 1)),
                 choice_knob("taps_inner", on_off(taps_fit)),
                 choice_knob("stationary", on_off(plane_bytes <= kStationaryPlaneBytes)),
                 choice_knob("prefetch", on_off(plane_bytes <= kStationaryPlaneBytes &&
                                                ic_chunks > 1 && kh * kw > 1)),
                 choice_knob("pad_rows", on_off(pad.defined()))};
  space.constraint = [knobs = space.knobs, plane_bytes, block_vectors, kw,
                      registers = vu.registers](const Config& config) {
    const std::vector<int64_t>& tile_ow = knob_value(knobs, config, "tile_ow");
    const int64_t tile_oc = knob_int(knobs, config, "tile_oc");
    const bool taps_inner = knob_int(knobs, config, "taps_inner") != 0;
    if (micro_kernel_registers(tile_ow.back(), tile_oc, knob_int(knobs, config, "tile_oh"),
                               block_vectors, taps_inner ? kw : 1) > registers)
      return false;
    // taps_inner unrolls the taps itself.
    if (taps_inner && knob_int(knobs, config, "unroll_kw") != 0) return false;
    // The stationary order splits no row across threads (tile_ow's outer
    // part stays 1) and keeps the tile's planes in L1.
    // Its prefetch goes at the input-channel blocks outside the rows.
    // The padding goes inside the rows of the row-blocked order only.
    if (knob_int(knobs, config, "stationary") == 0) return knob_int(knobs, config, "prefetch") == 0;
    if (knob_int(knobs, config, "pad_rows") != 0) return false;
    return tile_ow[0] == 1 && plane_bytes * tile_oc <= kStationaryPlaneBytes &&
           (knob_int(knobs, config, "prefetch") == 0 ||
            knob_value(knobs, config, "tile_ic")[0] > 1);
  };
  // Small planes with two channel tiles in L1 default to the stationary
  // order: 2 channel blocks x up to 7 pixels (14 accumulators; 28 are no
  // faster on ResNet-18's 14x14 convs). The row blocks take 2 channel blocks
  // x up to 14 pixels: each broadcast then feeds two FMAs, and ResNet-18's
  // 56x56 and 28x28 convs run 10-15 % faster than with one channel block.
  // Row blocks that copy each padded row at most 1.5 times pad inside the
  // rows: ResNet-18's 3x3 stride-2 conv runs 8 % faster without its separate
  // pad pass, while its 3x3 stride-1 ones (3 copies) are 2 % and its 7x7
  // stride-2 conv1 (3.5 copies) 8 % slower that way.
  // With fewer registers (AVX2's 16) one channel block of more pixels may
  // keep more accumulators busy than two of few: default_micro_kernel decides.
  // A 1x1 conv's weights are the same for every pixel of the plane the
  // stationary order sweeps: LLVM hoists the channel block's weight vectors
  // (input block x 2 channel blocks) out of the pixel loops, and with 16
  // registers (AVX2) they spill inside them; AVX-512's 32 hold them.
  const bool even_oc = shape[1] % 2 == 0;
  const int64_t hoisted_weights = kh * kw == 1 ? reduce_extent(conv, 3) * 2 * block_vectors : 0;
  const bool stationary = plane_bytes * 2 <= kStationaryPlaneBytes && even_oc &&
                          (vu.registers >= 32 || hoisted_weights + 3 <= vu.registers);
  // With taps_inner one input vector at a time is live per pixel across taps.
  // A window's pixels in the stationary order are the divisor of the row
  // nearest 7: a 16-pixel row takes 8, not 4 (half the accumulators), as
  // DeepLabV3's 3x3 head conv over 16 x 16 pixels ran 1.47x and a U-Net's 3x3
  // convs over 16 x 16 1.1-1.2x faster that way. Its 1x1 convs, whose hoisted
  // weights already fill the registers, ran 3-5 % slower, and rows of 80 and
  // 128 pixels in the row-blocked order no faster in blocks of 16 than of 10
  // or 8: those keep the largest divisor under the limit.
  // The taps go innermost where they fit beside at least
  // kMinTapsAccumulators accumulators: grouped 1-D convs of 8-channel groups
  // over 1,000 frames, on one AVX-512 thread, ran 2x faster so with 11 to 21
  // taps (8 or 10 pixels, against 2 x 10 in TVM's order), 1.45x with 25 (5
  // pixels) and 1.2-1.35x with 26 (4), but 1.55x slower with 27 (2) and
  // 2.6x with 29 (1): too few FMAs in flight to hide their latency.
  auto micro_kernel = [&](bool taps) {
    return default_micro_kernel(
        shape[3], shape[1], stationary ? kStationaryRegN : kConvRegN, block_vectors,
        overlap_broadcasts_per_pixel(kw, stride_w, taps ? 1 : reduce_extent(conv, 3)),
        taps ? kw : 1, /*nearest=*/stationary && kh * kw > 1, vu);
  };
  bool taps_inner = groups_in_block && taps_fit;
  auto [reg_n, tile_oc] = micro_kernel(taps_inner);
  if (taps_inner && reg_n * tile_oc < kMinTapsAccumulators) {
    taps_inner = false;
    std::tie(reg_n, tile_oc) = micro_kernel(false);
  }
  // A window along the rows only (KH x 1: a (2+1)-D network's temporal conv
  // over [frames, H*W]) shares no input between a row's pixels, but each
  // input row feeds KH output rows: a micro-kernel of tile_oh rows, the
  // window's rows unrolled, broadcasts each input value once for all the
  // rows it feeds, and the padded rows a row block reads (pad_rows) are
  // copied (tile_oh + KH - 1) / tile_oh times instead of KH. R(2+1)D-18's
  // 3x1 convs over 8 x 3136 ran 4x faster tuned that way (4 rows of 2 pixels
  // x 2 channel blocks) than in rows of 14 pixels. Strided windows too (a
  // temporal stride 2): their row blocks pad inside the rows whatever the
  // copies (below), as S3D's 7x1 stride-2 conv over 16 x 12544 runs 4.2x
  // faster that way than from a padded copy of the whole input, whose 52
  // rows a block reads at once are too many streams to prefetch.
  const bool row_window = !stationary && kw == 1 && kh > 1 && shape[2] > 1;
  int64_t tile_oh = 1;
  if (row_window) {
    tile_oh = largest_divisor(shape[2], kMaxOhTile);
    int64_t n = largest_divisor(shape[3], reg_n);
    while (n > 1 &&
           micro_kernel_registers(n, tile_oc, tile_oh, block_vectors, 1) > vu.registers - 1)
      n = largest_divisor(shape[3], n - 1);
    reg_n = n;
  }
  // Row blocks read (tile_oh - 1) * stride + kh padded rows for tile_oh
  // output rows; at most 1.5 copies of each, they pad inside the rows.
  const bool pad_rows =
      !stationary && pad.defined() &&
      (row_window || 2 * ((tile_oh - 1) * stride_h + kh) <= 3 * tile_oh * stride_h);
  // Rows too few to share among the threads (a 1-D conv has one) split
  // their pixel chunks among them too.
  const int64_t rows = shape[0] * (shape[2] / tile_oh) * (pad_rows ? 1 : shape[1] / tile_oc);
  const int64_t chunks = ceildiv(shape[3], reg_n);
  int64_t ow_parts = 1;
  if (!stationary && shape[3] % reg_n == 0)
    for (int64_t d : divisors(chunks, chunks)) {
      ow_parts = d;
      if (rows * d >= kMinParallelRows) break;
    }
  space.default_config =
      require_config(space, {{"tile_ow", {ow_parts, chunks / ow_parts, reg_n}},
                             {"tile_oc", {tile_oc}},
                             {"tile_oh", {tile_oh}},
                             {"tile_ic", {ic_chunks, 1}},
                             {"unroll_kw", {0}},
                             {"unroll_kh", {tile_oh > 1 ? 1 : 0}},
                             {"taps_inner", {taps_inner ? 1 : 0}},
                             {"stationary", {stationary ? 1 : 0}},
                             {"prefetch", {stationary && ic_chunks > 1 && kh * kw > 1 ? 1 : 0}},
                             {"pad_rows", {pad_rows ? 1 : 0}}});
  space.apply = [conv, outputs, lanes = vu.lanes(), knobs = space.knobs](Schedule& sch,
                                                                         const Config& config) {
    ConvKnobs k = decode(knobs, config, false);
    k.vector_lanes = lanes;
    apply_conv(sch, conv, outputs, k);
  };
  return space;
}

// A depthwise conv reads each padded value only KH*KW times: copying the
// padded input costs as much memory traffic as the conv itself, so by default
// the padding is inlined (a branch per tap, vectors over the channel block).
SearchSpace depthwise_space(const te::Tensor& conv, const std::vector<te::Tensor>& outputs,
                            const VectorUnit& vu) {
  const std::vector<int64_t>& shape = conv.shape();
  // reg_n accumulators of a channel block's vectors, the kernel tap's vectors
  // and one input vector.
  const int64_t block_vectors = vu.vectors_for(shape[4]);
  auto registers = [block_vectors](int64_t reg_n) { return (reg_n + 1) * block_vectors + 1; };
  const int64_t kh = reduce_extent(conv, 0), kw = reduce_extent(conv, 1);
  bool padded = false;
  for (const te::Tensor& in : conv.op().input_tensors())
    padded |= tag_of(in) == "pad" && !is_output(outputs, in);
  std::vector<int64_t> unrolls = {0};
  if (kw > 1) unrolls.push_back(1);
  if (kh > 1) unrolls.push_back(2);
  SearchSpace space;
  space.name = "depthwise_conv2d_NCHWc.x86";
  Knob tile_ow = split_knob("tile_ow", shape[3], 3, kMaxDepthwiseRegN);
  add_ragged_row_blocks(tile_ow, shape[3]);
  space.knobs = {
      tile_ow, choice_knob("unroll_kernel", unrolls),
      choice_knob("pad_root", padded ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0})};
  space.constraint = [knobs = space.knobs, registers, budget = vu.registers](const Config& c) {
    return registers(knob_value(knobs, c, "tile_ow").back()) <= budget;
  };
  int64_t reg_n = largest_divisor(shape[3], kConvRegN);
  while (reg_n > 1 && registers(reg_n) > vu.registers - 1)
    reg_n = largest_divisor(shape[3], reg_n - 1);
  if (sliver_row(shape[3])) {  // ragged blocks, as conv_space's
    int64_t ragged = std::min(kConvRegN, shape[3] - 1);
    while (ragged > kMinRaggedRegN && registers(ragged) > vu.registers - 1) --ragged;
    if (registers(ragged) <= vu.registers - 1 && shape[3] % ragged != 0) reg_n = ragged;
  }
  space.default_config = require_config(space, {{"tile_ow", {1, ceildiv(shape[3], reg_n), reg_n}},
                                                {"unroll_kernel", {0}},
                                                {"pad_root", {0}}});
  space.apply = [conv, outputs, lanes = vu.lanes(), knobs = space.knobs](Schedule& sch,
                                                                         const Config& config) {
    ConvKnobs k = decode(knobs, config, true);
    k.vector_lanes = lanes;
    apply_conv(sch, conv, outputs, k);
  };
  return space;
}

}  // namespace

SearchSpace conv2d_nchwc_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                  const VectorUnit& vector_unit) {
  te::Tensor conv = find_tagged(anchor, {"conv2d_NCHWc", "depthwise_conv2d_NCHWc"});
  if (!conv.defined()) return generic_template(anchor, outputs, vector_unit);
  if (tag_of(conv) == "depthwise_conv2d_NCHWc") return depthwise_space(conv, outputs, vector_unit);
  return conv_space(conv, outputs, vector_unit);
}

}  // namespace lathe::topi
