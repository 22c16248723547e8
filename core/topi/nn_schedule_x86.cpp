#include "topi/nn_schedule_x86.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <string_view>
#include <unordered_set>

#include "topi/default_schedule.h"
#include "topi/nn.h"

namespace lathe::topi {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;
using OpSet = std::unordered_set<te::Operation, te::OperationHash, te::OperationEqual>;

// Output pixels per conv micro-kernel: reg_n accumulator vectors, leaving
// room among the 32 AVX-512 registers for the kernel vector and broadcasts.
constexpr int64_t kConvRegN = 14;
// Matmul register tile: rows x columns (two vectors, or one of up to 16 lanes).
constexpr int64_t kMatmulRows = 8, kMatmulRowsOneVector = 14;
// Fewer parallel column panels than this and the row tiles run in parallel too.
constexpr int64_t kMinParallelPanels = 8;

const std::string& tag_of(const te::Tensor& t) {
  static const std::string none;
  const te::ComputeOpNode* c = t.op().as_compute();
  return c ? c->tag : none;
}

// The anchor's reduction: the anchor itself or, through the injective stages
// its compute adds (bias, Gemm's scaling), the nearest producer tagged `tags`.
te::Tensor find_tagged(const te::Tensor& anchor, std::initializer_list<std::string_view> tags) {
  std::deque<te::Tensor> queue = {anchor};
  OpSet seen;
  while (!queue.empty()) {
    te::Tensor t = queue.front();
    queue.pop_front();
    if (!t.op().as_compute() || !seen.insert(t.op()).second) continue;
    for (std::string_view tag : tags)
      if (tag_of(t) == tag) return t;
    for (const te::Tensor& in : t.op().input_tensors()) queue.push_back(in);
  }
  return te::Tensor();
}

bool is_output(const std::vector<te::Tensor>& outputs, const te::Tensor& t) {
  for (const te::Tensor& o : outputs)
    if (o.op().same_as(t.op())) return true;
  return false;
}

// The group output that computes the anchor tile by tile: one of the anchor's
// shape other than the anchor itself (the fused epilogue's last stage).
te::Tensor epilogue_output(const std::vector<te::Tensor>& outputs, const te::Tensor& reduction) {
  if (is_output(outputs, reduction)) return te::Tensor();
  for (const te::Tensor& o : outputs)
    if (o.shape() == reduction.shape() && o.op().as_compute() &&
        o.op().as_compute()->reduce_axis.empty())
      return o;
  return te::Tensor();
}

// Inlines every injective stage that is neither an output nor in `keep`.
void inline_injective(Schedule& sch, const OpSet& keep) {
  for (Stage st : sch.stages()) {
    const te::ComputeOpNode* c = st.op().as_compute();
    if (!c || st.node().is_output || !c->reduce_axis.empty() || keep.count(st.op()) ||
        keep.count(st.node().origin_op))
      continue;
    st.compute_inline();
  }
}

// The generic default for one root stage: outer axes fused in parallel, the
// innermost in vectors when it divides by the vector width.
void default_stage(Stage st) {
  const te::ComputeOpNode* c = st.op().as_compute();
  if (!c || c->axis.empty() || st.node().attach_type != schedule::AttachType::Root) return;
  std::vector<IterVar> axis = c->axis;
  IterVar lanes;
  if (c->shape.back() % kDefaultVectorLanes == 0) {
    auto [o, i] = st.split(axis.back(), kDefaultVectorLanes);
    axis.back() = o;
    lanes = i;
  }
  if (!c->reduce_axis.empty()) {
    std::vector<IterVar> order = axis;
    order.insert(order.end(), c->reduce_axis.begin(), c->reduce_axis.end());
    if (lanes.defined()) order.push_back(lanes);
    st.reorder(order);
  }
  IterVar outer = axis[0];
  for (size_t i = 1; i + 1 < axis.size(); ++i) outer = st.fuse(outer, axis[i]);
  st.parallel(outer);
  if (lanes.defined()) st.vectorize(lanes);
}

// Every root stage no primitive has touched yet gets the generic default.
void default_remaining(Schedule& sch, const OpSet& done) {
  for (Stage st : sch.stages()) {
    if (done.count(st.op()) || done.count(st.node().origin_op) ||
        st.node().attach_type != schedule::AttachType::Root)
      continue;
    default_stage(st);
  }
}

// A padded input computed once, at the root: rows in parallel, the innermost
// axis in vectors when it is a channel block (NCHWc).
void schedule_pad(Stage pad, bool vector_inner) {
  std::vector<IterVar> axis = pad.axis();
  IterVar outer = axis[0];
  for (size_t i = 1; i + 2 < axis.size(); ++i) outer = pad.fuse(outer, axis[i]);
  pad.parallel(outer);
  if (vector_inner && pad.op()->shape.back() > 1) pad.vectorize(axis.back());
}

// The stages between the reduction and the epilogue output `out` (both
// excluded), consumers first. compute_at needs the tile loops' stage to read
// the reduction directly or through attached stages, so these stay stages of
// their own, attached tile by tile, instead of being inlined.
std::vector<te::Tensor> epilogue_path(const te::Tensor& reduction, const te::Tensor& out) {
  std::vector<te::Tensor> path;
  if (!out.defined()) return path;
  OpSet seen, on_path;
  std::function<bool(const te::Tensor&)> reaches = [&](const te::Tensor& t) {
    if (t.op().same_as(reduction.op())) return true;
    if (!t.op().as_compute()) return false;
    if (seen.count(t.op())) return on_path.count(t.op()) > 0;
    seen.insert(t.op());
    bool any = false;
    for (const te::Tensor& in : t.op().input_tensors()) any |= reaches(in);
    if (any) {
      on_path.insert(t.op());
      if (!t.op().same_as(out.op())) path.push_back(t);
    }
    return any;
  };
  reaches(out);
  std::reverse(path.begin(), path.end());  // post-order is producers first
  return path;
}

// Attaches the epilogue's intermediate stages at `at`, consumers first,
// vectors along their innermost axis.
void attach_path(const std::vector<te::Tensor>& path, Schedule& sch, Stage loops,
                 const IterVar& at) {
  for (const te::Tensor& t : path) {
    Stage st = sch[t];
    st.compute_at(loops, at);
    if (t.shape().back() > 1) st.vectorize(st.axis().back());
  }
}

// Where the accumulation runs: the anchor's own stage when an epilogue output
// computes it tile by tile, else a local cache of the anchor (whose stage
// becomes the copy-out, itself the tile loop nest).
struct TileStages {
  Stage loops;                   // the stage whose loops tile the output
  Stage acc;                     // the reduction, attached inside `loops`
  std::vector<te::Tensor> path;  // epilogue stages between them, consumers first
};

TileStages tile_stages(Schedule& sch, const te::Tensor& reduction,
                       const std::vector<te::Tensor>& outputs, OpSet& done) {
  te::Tensor out = epilogue_output(outputs, reduction);
  TileStages t;
  t.path = epilogue_path(reduction, out);
  for (const te::Tensor& p : t.path) done.insert(p.op());
  inline_injective(sch, done);
  if (out.defined()) {
    t.loops = sch[out];
    t.acc = sch[reduction];
  } else {
    te::Tensor cc = sch.cache_write(reduction, "local");
    t.loops = sch[reduction];
    t.acc = sch[cc];
    done.insert(cc.op());
  }
  done.insert(t.loops.op());
  done.insert(reduction.op());
  return t;
}

}  // namespace

void schedule_conv2d_nchwc_x86(Schedule& sch, const te::Tensor& anchor,
                               const std::vector<te::Tensor>& outputs) {
  te::Tensor conv = find_tagged(anchor, {"conv2d_NCHWc", "depthwise_conv2d_NCHWc"});
  if (!conv.defined()) return apply_default_schedule(sch);
  OpSet done = {conv.op()};
  // A depthwise conv reads each padded value only KH*KW times: copying the
  // padded input costs as much memory traffic as the conv itself, so the
  // padding is inlined there (a branch per tap, vectors over the channel block).
  const bool depthwise = tag_of(conv) == "depthwise_conv2d_NCHWc";
  for (const te::Tensor& in : conv.op().input_tensors()) {
    if (tag_of(in) != "pad" || is_output(outputs, in) || depthwise) continue;
    schedule_pad(sch[in], true);
    done.insert(in.op());
  }
  const int64_t reg_n = largest_divisor(conv.shape()[3], kConvRegN);
  TileStages t = tile_stages(sch, conv, outputs, done);

  // Output: (n, oc_chunk, oh) in parallel, each row in blocks of reg_n pixels
  // whose channel block is one vector.
  std::vector<IterVar> ax = t.loops.axis();
  auto [ow_chunk, ow_block] = t.loops.split(ax[3], reg_n, "ow_chunk", "ow_block");
  t.loops.reorder({ax[0], ax[1], ax[2], ow_chunk, ow_block, ax[4]});
  IterVar rows = t.loops.fuse(t.loops.fuse(ax[0], ax[1]), ax[2]);
  t.loops.parallel(rows);
  t.loops.vectorize(ax[4]);

  // Micro-kernel: reductions outside, reg_n unrolled accumulator vectors inside,
  // each input value broadcast against the kernel's output-channel vector.
  attach_path(t.path, sch, t.loops, ow_chunk);
  t.acc.compute_at(t.loops, ow_chunk);
  std::vector<IterVar> a = t.acc.axis();
  std::vector<IterVar> order = {a[0], a[1], a[2]};
  for (const IterVar& r : t.acc.reduce_axis()) order.push_back(r);
  order.push_back(a[3]);
  order.push_back(a[4]);
  t.acc.reorder(order);
  t.acc.unroll(a[3]);
  t.acc.vectorize(a[4]);
  default_remaining(sch, done);
}

void schedule_conv2d_nchw_x86(Schedule& sch, const te::Tensor& anchor,
                              const std::vector<te::Tensor>& outputs) {
  te::Tensor conv = find_tagged(anchor, {"conv2d_nchw", "depthwise_conv2d_nchw"});
  if (!conv.defined()) return apply_default_schedule(sch);
  OpSet done = {conv.op()};
  for (const te::Tensor& in : conv.op().input_tensors()) {
    if (tag_of(in) != "pad" || is_output(outputs, in)) continue;
    schedule_pad(sch[in], false);
    done.insert(in.op());
  }
  const auto& shape = conv.shape();
  const int64_t xb = largest_divisor(shape[3], kDefaultVectorLanes);
  const int64_t fb = largest_divisor(shape[1], 8);
  TileStages t = tile_stages(sch, conv, outputs, done);

  // Output: (n, filter block, row) in parallel, rows in vectors of xb pixels.
  std::vector<IterVar> ax = t.loops.axis();
  auto [fo, fi] = t.loops.split(ax[1], fb, "ff_outer", "ff_inner");
  auto [xo, xi] = t.loops.split(ax[3], xb, "xx_outer", "xx_inner");
  t.loops.reorder({ax[0], fo, ax[2], xo, fi, xi});
  IterVar rows = t.loops.fuse(t.loops.fuse(ax[0], fo), ax[2]);
  t.loops.parallel(rows);
  t.loops.vectorize(xi);

  // Micro-kernel: fb x xb accumulators, each input vector used by fb filters.
  attach_path(t.path, sch, t.loops, xo);
  t.acc.compute_at(t.loops, xo);
  std::vector<IterVar> a = t.acc.axis();
  std::vector<IterVar> order = {a[0], a[2]};
  for (const IterVar& r : t.acc.reduce_axis()) order.push_back(r);
  order.push_back(a[1]);
  order.push_back(a[3]);
  t.acc.reorder(order);
  t.acc.unroll(a[1]);
  t.acc.vectorize(a[3]);
  default_remaining(sch, done);
}

void schedule_matmul_x86(Schedule& sch, const te::Tensor& anchor,
                         const std::vector<te::Tensor>& outputs) {
  te::Tensor mm = find_tagged(anchor, {"matmul"});
  if (!mm.defined()) return apply_default_schedule(sch);
  const auto& shape = mm.shape();
  const size_t rank = shape.size(), batch_dims = rank - 2;
  const int64_t m = shape[rank - 2], n = shape[rank - 1];
  const int64_t* k_extent = te::as_const_int(mm.op().as_compute()->reduce_axis[0]->dom.extent);
  const int64_t k = k_extent ? *k_extent : 1;
  const int64_t nb = n % 32 == 0 ? 32 : largest_divisor(n, kDefaultVectorLanes);
  // B: a transposed B's stage is computed panel by panel; a plain B is packed
  // into contiguous panels when each panel serves a whole column of row tiles.
  std::vector<te::Tensor> inputs = mm.op().input_tensors();
  te::Tensor b = inputs.size() > 1 ? inputs[1] : inputs[0];
  OpSet done = {mm.op()};
  const bool b_stage = tag_of(b) == "transpose_b" && !is_output(outputs, b);
  if (b_stage) done.insert(b.op());
  TileStages t = tile_stages(sch, mm, outputs, done);
  const int64_t row_limit = nb == 32 ? kMatmulRows : kMatmulRowsOneVector;

  // A batch of few-row products against one shared B ([64,1,256] x [256,768]
  // in attention projections) is one matrix product: the batch axes fold into
  // the rows, so B is packed once per panel instead of once per batch.
  int64_t batch = 1;
  for (size_t d = 0; d < batch_dims; ++d) batch *= shape[d];
  const bool fold_batch = batch_dims > 0 && b.ndim() == 2 && m < row_limit;
  std::vector<IterVar> ax = t.loops.axis();
  IterVar rows = ax[rank - 2];
  int64_t mb = largest_divisor(m, row_limit);
  if (fold_batch) {
    rows = ax[0];
    for (size_t d = 1; d < batch_dims; ++d) rows = t.loops.fuse(rows, ax[d]);
    rows = t.loops.fuse(rows, ax[rank - 2]);
    // Whole batches per tile, so every tile is a box in (batch, row) space.
    mb = m * largest_divisor(batch, std::max<int64_t>(1, row_limit / m));
  }
  int64_t panels = n / nb;
  if (!fold_batch) panels *= batch;
  const bool pack = panels >= kMinParallelPanels;

  auto [mo, mi] = t.loops.split(rows, mb, "i_outer", "i_inner");
  auto [no, ni] = t.loops.split(ax[rank - 1], nb, "j_outer", "j_inner");
  std::vector<IterVar> order;
  if (!fold_batch) order.assign(ax.begin(), ax.begin() + static_cast<long>(batch_dims));
  for (const IterVar& v : {no, mo, mi, ni}) order.push_back(v);
  t.loops.reorder(order);
  IterVar outer = no;
  if (!fold_batch)
    for (size_t d = batch_dims; d-- > 0;) outer = t.loops.fuse(ax[d], outer);
  IterVar panel_loop = outer;
  if (!pack) outer = t.loops.fuse(outer, mo);
  t.loops.parallel(outer);
  t.loops.vectorize(ni);

  // Micro-kernel: mb x nb accumulators, k unrolled by 4 around them.
  attach_path(t.path, sch, t.loops, pack ? mo : outer);
  t.acc.compute_at(t.loops, pack ? mo : outer);
  std::vector<IterVar> a = t.acc.axis();
  IterVar kk = t.acc.reduce_axis()[0];
  const int64_t kf = largest_divisor(k, 4);
  auto [ko, ki] = t.acc.split(kk, kf, "k_outer", "k_inner");
  IterVar acc_rows = a[rank - 2];
  std::vector<IterVar> acc_order;
  if (fold_batch) {
    acc_rows = a[0];
    for (size_t d = 1; d < batch_dims; ++d) acc_rows = t.acc.fuse(acc_rows, a[d]);
    acc_rows = t.acc.fuse(acc_rows, a[rank - 2]);
  } else {
    acc_order.assign(a.begin(), a.begin() + static_cast<long>(batch_dims));
  }
  for (const IterVar& v : {ko, ki, acc_rows, a[rank - 1]}) acc_order.push_back(v);
  t.acc.reorder(acc_order);
  t.acc.unroll(acc_rows);
  t.acc.unroll(ki);
  t.acc.vectorize(a[rank - 1]);

  if (b_stage) {
    Stage bt = sch[b];
    bt.compute_at(t.loops, pack ? panel_loop : outer);
    bt.vectorize(bt.axis().back());
  } else if (pack && !b.op().as_compute()) {
    te::Tensor bb = sch.cache_read(b, "local", {t.acc.op()});
    Stage bs = sch[bb];
    bs.compute_at(t.loops, panel_loop);
    bs.vectorize(bs.axis().back());
    done.insert(bb.op());
  }
  default_remaining(sch, done);
}

}  // namespace lathe::topi
