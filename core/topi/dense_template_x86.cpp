// The MatMul / Gemm / batched MatMul template, after TVM's dense_pack and
// batch_matmul x86 schedules; declared in topi/nn_schedule_x86.h.
#include <algorithm>

#include "support/int_math.h"
#include "topi/default_schedule.h"
#include "topi/generic_template.h"
#include "topi/nn.h"
#include "topi/nn_schedule_x86.h"

namespace lathe::topi {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

// Default register tile: rows x columns (two vectors, or one), at most this
// many rows, and fewer where the register file would not hold the
// accumulators, the row's B vectors and a broadcast of A.
constexpr int64_t kMatmulRows = 8, kMatmulRowsOneVector = 14;
// Column panels of whole vectors that overrun the columns by at most 1/this.
constexpr int64_t kMaxRaggedColumns = 32;
// Fewer parallel column panels than this and the row tiles run in parallel too.
constexpr int64_t kMinParallelPanels = 8;
// Options: panels of whole vectors up to this many columns, rows as many as
// keep rows x vectors accumulators within the register file.
constexpr int64_t kMaxPanel = 64;
// A panel that one row tile reads (a matrix-vector product) streams B from
// memory once, a panel's width of each row at a stride of N floats. Wide
// panels, their accumulators in L1, stream whole kilobytes of each row:
// AlexNet's 4096 x 4096 GEMV ran 2.4x faster in panels of 512 columns than
// of 32 (alternately measured), 1024 another 1.1x on two threads. Up to this
// many columns, and at least kMinParallelPanels panels by default, when B
// outgrows every core's L2 we know (1-2 MB): a B that a model run finds in
// cache kept its register tiles (the zoo's 1.6 MB MLP layer: 2-7 % faster).
constexpr int64_t kMaxStreamingPanel = 1024;
constexpr int64_t kStreamingBytes = int64_t{4} << 20;
// Parts of k a split-k matrix-vector product sums apart by default: enough
// for 16 threads, partial sums of 16 x N floats.
constexpr int64_t kSplitKParts = 16;

// What the schedule's structure follows from, fixed per computation.
struct MatmulShape {
  te::Tensor mm, b;
  size_t rank = 0, batch_dims = 0;
  int64_t m = 1, n = 1, k = 1, batch = 1;
  bool b_stage = false;  // B is read through its own transpose stage
  bool fold_batch = false;
};

struct MatmulKnobs {
  int64_t rows = 1, cols = 1, k_inner = 1;
  bool pack_b = false, parallel_rows = false;
  int64_t split_k = 1;        // parts of k summed apart (apply_split_k), 1: none
  int64_t vector_lanes = 16;  // the target's, for the stages not tiled
  int64_t row_vectors = 2;    // a one-row tile's register panel, in vectors (gemv_vectors)
};

// A one-row tile's accumulators, with as many vectors of B in flight and a
// broadcast, take about half the register file: 8 vectors on AVX-512's 32,
// 4 on AVX2's 16 (8 spilled there).
int64_t gemv_vectors(const VectorUnit& vu) {
  return std::max<int64_t>(2, vu.registers / 4);
}

MatmulShape matmul_shape(const te::Tensor& mm, const std::vector<te::Tensor>& outputs) {
  MatmulShape s;
  s.mm = mm;
  const std::vector<int64_t>& shape = mm.shape();
  s.rank = shape.size();
  s.batch_dims = s.rank - 2;
  s.m = shape[s.rank - 2];
  s.n = shape[s.rank - 1];
  s.k = reduce_extent(mm, 0);
  for (size_t d = 0; d < s.batch_dims; ++d) s.batch *= shape[d];
  std::vector<te::Tensor> inputs = mm.op().input_tensors();
  s.b = inputs.size() > 1 ? inputs[1] : inputs[0];
  s.b_stage = tag_of(s.b) == "transpose_b" && !is_output(outputs, s.b);
  return s;
}

// Columns per panel and rows per tile of the default schedule; `s.fold_batch`
// follows from them: a batch of few-row products against one shared B
// ([64,1,256] x [256,768] in attention projections) is one matrix product, the
// batch axes folded into the rows, so B is packed once per panel instead of
// once per batch.
std::pair<int64_t, int64_t> default_tile(MatmulShape& s, const VectorUnit& vu) {
  const int64_t lanes = vu.lanes();
  // Columns: two vectors or one where they divide; where the best divisor is
  // under half a vector (197 tokens) a tile that does not divide: the
  // accumulators compute whole vectors from a packed panel and only the last
  // panel's store is guarded.
  int64_t nb = s.n % (2 * lanes) == 0 ? 2 * lanes : largest_divisor(s.n, lanes);
  // Half a vector rather than an odd-sized one, as channel_block: 1000
  // columns in tiles of 10 ran a matrix-vector product at half the speed of
  // tiles of 8.
  if (nb % (lanes / 2) != 0 && lanes >= 8 && s.n % (lanes / 2) == 0) nb = lanes / 2;
  if (2 * nb < lanes && s.n > lanes) nb = s.n >= 4 * lanes ? 2 * lanes : lanes;
  // Many rows against half-vector panels run every FMA at half width: two
  // whole vectors instead, the last panel ragged (packed, its store guarded),
  // where that adds at most 1/kMaxRaggedColumns of the columns. A language
  // model's 5,000-word head over 128 tokens: 157 panels of 32 columns, not
  // 625 of 8.
  const int64_t rows_sharing_b = s.b.ndim() == 2 ? s.batch * s.m : s.m;
  const int64_t whole = ceildiv(s.n, 2 * lanes) * 2 * lanes;
  if (2 * nb <= lanes && rows_sharing_b > kMatmulRows && s.n > 2 * lanes &&
      (whole - s.n) * kMaxRaggedColumns <= s.n)
    nb = 2 * lanes;
  const int64_t vectors = vu.vectors_for(nb);
  const int64_t row_limit =
      std::max<int64_t>(1, std::min(vectors == 2 ? kMatmulRows : kMatmulRowsOneVector,
                                    (vu.registers - vectors - 1) / vectors));
  s.fold_batch = s.batch_dims > 0 && s.b.ndim() == 2 && s.m < row_limit;
  // Rows: where no divisor reaches half the limit, tiles of about the limit,
  // the last one guarded (197 rows: 25 tiles of 8).
  auto row_tile = [&](int64_t rows) {
    int64_t mb = largest_divisor(rows, row_limit);
    if (2 * mb <= row_limit && rows > row_limit) mb = ceildiv(rows, ceildiv(rows, row_limit));
    return mb;
  };
  // Whole batches per tile when folded, so every tile is a box in (batch,
  // row) space; with one row per batch any tile is, and a prime batch (a
  // ViT's 197 tokens as [197, 1, 192]) takes guarded tiles as rows do,
  // where tiles of one row ran its QKV projection at 29 % of peak.
  if (s.fold_batch)
    return {s.m == 1 ? row_tile(s.batch)
                     : s.m * largest_divisor(s.batch, std::max<int64_t>(1, row_limit / s.m)),
            nb};
  return {row_tile(s.m), nb};
}

void apply_matmul(Schedule& sch, const MatmulShape& s, const std::vector<te::Tensor>& outputs,
                  const MatmulKnobs& k) {
  const size_t rank = s.rank, batch_dims = s.batch_dims;
  OpSet done = {s.mm.op()};
  if (s.b_stage && k.pack_b) done.insert(s.b.op());
  TileStages t = tile_stages(sch, s.mm, outputs, done);

  // Output: column panels (with the batch) in parallel, row tiles inside, or
  // both in parallel; mb x nb tiles, the columns in vectors.
  std::vector<IterVar> ax = t.loops.axis();
  IterVar rows = ax[rank - 2];
  if (s.fold_batch) {
    rows = ax[0];
    for (size_t d = 1; d < batch_dims; ++d) rows = t.loops.fuse(rows, ax[d]);
    rows = t.loops.fuse(rows, ax[rank - 2]);
  }
  // A panel wider than the register tile runs its columns vector by vector,
  // the accumulators in memory (L1).
  const bool wide = k.cols > (k.rows == 1 ? k.row_vectors : 2) * k.vector_lanes;
  auto [mo, mi] = t.loops.split(rows, k.rows, "i_outer", "i_inner");
  auto [no, ni] = t.loops.split(ax[rank - 1], k.cols, "j_outer", "j_inner");
  // Batches of many rows against one B (ConvNeXt's channels-last MLPs,
  // [1, 14, 14, 384] x [384, 1536], 14 rows a batch) that cannot fold: the
  // batch inside each column panel, so that B's panel is packed and read
  // from cache once for every batch, not once per batch (B streamed 14
  // times ran them at under half the peak), where the panels alone keep the
  // threads busy.
  const bool batch_inside = !s.fold_batch && batch_dims > 0 && s.b.ndim() == 2 &&
                            !k.parallel_rows && ceildiv(s.n, k.cols) >= kMinParallelPanels;
  std::vector<IterVar> order;
  if (batch_inside) order.push_back(no);
  if (!s.fold_batch)
    order.insert(order.end(), ax.begin(), ax.begin() + static_cast<long>(batch_dims));
  if (!batch_inside) order.push_back(no);
  order.insert(order.end(), {mo, mi, ni});
  t.loops.reorder(order);
  IterVar out_vector = ni;
  if (wide) out_vector = t.loops.split(ni, k.vector_lanes, "j_vectors", "j_lanes").second;
  IterVar outer = no;
  if (!s.fold_batch && !batch_inside)
    for (size_t d = batch_dims; d-- > 0;) outer = t.loops.fuse(ax[d], outer);
  const IterVar panel_loop = outer;
  if (k.parallel_rows) outer = t.loops.fuse(outer, mo);
  t.loops.parallel(outer);
  t.loops.vectorize(out_vector);
  const IterVar tile_loop = k.parallel_rows ? outer : mo;
  const IterVar pack_loop = k.parallel_rows ? outer : panel_loop;

  // Micro-kernel: mb x nb accumulators, k unrolled by tile_k around them.
  attach_path(t.path, sch, t.loops, tile_loop, wide ? k.vector_lanes : 0);
  t.acc.compute_at(t.loops, tile_loop);
  std::vector<IterVar> a = t.acc.axis();
  auto [ko, ki] = t.acc.split(t.acc.reduce_axis()[0], k.k_inner, "k_outer", "k_inner");
  IterVar acc_rows = a[rank - 2];
  std::vector<IterVar> acc_order;
  if (s.fold_batch) {
    acc_rows = a[0];
    for (size_t d = 1; d < batch_dims; ++d) acc_rows = t.acc.fuse(acc_rows, a[d]);
    acc_rows = t.acc.fuse(acc_rows, a[rank - 2]);
  } else {
    acc_order.assign(a.begin(), a.begin() + static_cast<long>(batch_dims));
  }
  if (wide) {
    // Per k tile, each vector of columns takes the tile's rows of B in turn.
    auto [co, ci] = t.acc.split(a[rank - 1], k.vector_lanes, "j_vectors", "j_lanes");
    for (const IterVar& v : {ko, acc_rows, co, ki, ci}) acc_order.push_back(v);
    t.acc.reorder(acc_order);
    t.acc.unroll(acc_rows);
    t.acc.unroll(ki);
    t.acc.vectorize(ci);
  } else {
    for (const IterVar& v : {ko, ki, acc_rows, a[rank - 1]}) acc_order.push_back(v);
    t.acc.reorder(acc_order);
    t.acc.unroll(acc_rows);
    t.acc.unroll(ki);
    t.acc.vectorize(a[rank - 1]);
  }

  // B: a transposed B's stage is computed panel by panel; a plain B is copied
  // into contiguous panels.
  if (k.pack_b && s.b_stage) {
    Stage bt = sch[s.b];
    bt.compute_at(t.loops, pack_loop);
    bt.vectorize(bt.axis().back());
  } else if (k.pack_b) {
    te::Tensor bb = sch.cache_read(s.b, "local", {t.acc.op()});
    Stage bs = sch[bb];
    bs.compute_at(t.loops, pack_loop);
    bs.vectorize(bs.axis().back());
    done.insert(bb.op());
  }
  schedule_remaining(sch, done, k.vector_lanes);
}

// A matrix-vector product whose columns are too few for wide parallel
// panels (N = 1000 classes, 256 features) streams B in narrow panels, a
// line or two of each row at a stride of N floats. Split k instead, as
// TVM's rfactor schedules do: each of `parts` threads streams whole rows of
// its part of B into partial sums, and the output sums the parts, a vector
// of columns at a time, before its epilogue. The autoencoder's 8192 x 256
// GEMV ran 1.8x faster so (alternately measured, loaded host).
void apply_split_k(Schedule& sch, const MatmulShape& s, const std::vector<te::Tensor>& outputs,
                   const MatmulKnobs& k) {
  OpSet done = {s.mm.op()};
  TileStages t = tile_stages(sch, s.mm, outputs, done);
  const int64_t width = k.cols;  // a vector of columns that divides n
  auto [ko, ki] = t.acc.split_nparts(t.acc.reduce_axis()[0], k.split_k, "k_parts", "k_part");
  const te::Tensor partial = sch.rfactor(t.acc.op().output(), ko);
  Stage r = sch[partial];
  done.insert(partial.op());
  std::vector<IterVar> ra = r.axis();  // parts, then the output's axes
  r.parallel(ra[0]);
  auto [jo, ji] = r.split(ra.back(), width, "j_vectors", "j_lanes");
  auto [kio, kii] = r.split(r.reduce_axis()[0], k.k_inner, "k_outer", "k_inner");
  std::vector<IterVar> order(ra.begin(), ra.end() - 1);
  for (const IterVar& v : {kio, kii, jo, ji}) order.push_back(v);
  r.reorder(order);
  r.unroll(kii);
  r.vectorize(ji);

  const IterVar columns = t.loops.axis().back();
  auto [co, ci] = t.loops.split(columns, width, "j_outer", "j_inner");
  t.loops.vectorize(ci);
  t.acc.compute_at(t.loops, co);
  const std::vector<IterVar> sum_axes = t.acc.axis();
  std::vector<IterVar> sum_order(sum_axes.begin(), sum_axes.end() - 1);
  sum_order.push_back(t.acc.reduce_axis()[0]);
  sum_order.push_back(sum_axes.back());
  t.acc.reorder(sum_order);
  t.acc.vectorize(sum_axes.back());
  attach_path(t.path, sch, t.loops, co);
  schedule_remaining(sch, done, k.vector_lanes);
}

void add_unique(std::vector<int64_t>& v, int64_t x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  std::sort(v.begin(), v.end());
}

SearchSpace matmul_space(MatmulShape s, const std::vector<te::Tensor>& outputs,
                         const VectorUnit& vu) {
  const auto [mb, nb] = default_tile(s, vu);
  // Panels of whole 8-lane vectors, and the default.
  std::vector<int64_t> cols;
  for (int64_t d : divisors(s.n, kMaxPanel))
    if (d % 8 == 0) cols.push_back(d);
  add_unique(cols, nb);
  const int64_t vectors = vu.vectors_for(cols.back());
  const int64_t row_cap = std::max<int64_t>(1, vu.registers / vectors);
  std::vector<int64_t> rows;
  if (s.fold_batch) {
    for (int64_t d : divisors(s.batch, std::max<int64_t>(1, row_cap / s.m)))
      rows.push_back(s.m * d);
  } else {
    rows = divisors(s.m, row_cap);
  }
  add_unique(rows, mb);
  std::vector<int64_t> k_tiles;
  for (int64_t d : divisors(s.k, 16))
    if ((d & (d - 1)) == 0) k_tiles.push_back(d);
  const int64_t kf = largest_divisor(s.k, 4);
  add_unique(k_tiles, kf);
  // B can be packed when it is an input buffer or read through its transpose stage.
  const bool packable = s.b_stage || (!s.b.op().as_compute() && !is_output(outputs, s.b));
  int64_t panels = ceildiv(s.n, nb);
  if (!s.fold_batch) panels *= s.batch;
  // A panel past B's last column must be packed: the accumulators read whole
  // vectors of it. Packed panels keep the rows serial even when they are few
  // (row tiles in parallel would pack the panel once per tile: 197x256x53
  // took 0.12 ms that way, 0.048 ms packed once per panel).
  // A panel read by one row tile only (a matrix-vector product) is read
  // once either way: copying it first would double the traffic.
  const int64_t rows_per_panel = s.fold_batch ? s.batch * s.m : s.m;
  const bool reused = ceildiv(rows_per_panel, mb) > 1;
  const bool pack = (panels >= kMinParallelPanels && reused) || s.n % nb != 0;
  // Streaming: wide panels of whole vectors, the widest that leaves
  // kMinParallelPanels by default, and a deeper k tile (8 rows of B in flight).
  int64_t default_cols = nb, default_k = kf;
  const int64_t lanes = vu.lanes();
  int64_t b_bytes = s.b.dtype().bytes();
  for (int64_t e : s.b.shape()) b_bytes *= e;
  const bool streams = b_bytes > kStreamingBytes;
  if (!reused && s.n % nb == 0) {
    const int64_t batch_panels = s.fold_batch ? 1 : s.batch;
    for (int64_t d : divisors(s.n, kMaxStreamingPanel)) {
      if (d <= 2 * lanes || d % lanes != 0) continue;
      add_unique(cols, d);
      if (batch_panels * (s.n / d) >= kMinParallelPanels && streams) default_cols = d;
    }
    // In cache: register panels of up to gemv_vectors() vectors (one row),
    // the widest that leaves kMinParallelPanels.
    if (!streams && mb == 1)
      for (int64_t d : divisors(s.n, gemv_vectors(vu) * lanes))
        if (d > nb && d % lanes == 0 && batch_panels * (s.n / d) >= kMinParallelPanels)
          default_cols = d;
    if (default_cols != nb) default_k = largest_divisor(s.k, 8);
    add_unique(k_tiles, default_k);
  }

  // Split k (apply_split_k): a single row against a B read through no
  // stage of its own, in parts of k that are whole multiples of the k tile;
  // the output's columns in vectors that divide them (tile_x then names
  // that width). The default where B streams and no panel wider than the
  // register tile leaves kMinParallelPanels.
  std::vector<int64_t> parts = {1};
  int64_t split_width = 0;
  if (s.m == 1 && s.batch == 1 && !s.b_stage) {
    split_width = s.n % lanes == 0 ? lanes : s.n % (lanes / 2) == 0 ? lanes / 2 : 0;
    for (int64_t p : {int64_t{4}, int64_t{8}, kSplitKParts})
      if (split_width > 0 && s.k % (p * 8) == 0) parts.push_back(p);
  }
  int64_t default_parts = 1;
  if (!reused && parts.size() > 1 && default_cols == nb && streams) {
    default_parts = parts.back();
    add_unique(cols, split_width);
    default_cols = split_width;
    default_k = 8;
    add_unique(k_tiles, default_k);
  }

  SearchSpace space;
  space.name = s.batch_dims > 0 ? "batch_matmul.x86" : "dense_pack.x86";
  space.knobs = {
      choice_knob("tile_y", rows), choice_knob("tile_x", cols), choice_knob("tile_k", k_tiles),
      choice_knob("pack_b", packable ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0}),
      choice_knob("parallel_rows", {0, 1})};
  if (parts.size() > 1) {
    space.knobs.push_back(choice_knob("split_k", parts));
    // Split k ignores the panel knobs: one point of them, and a column
    // width and k tile it can take.
    space.constraint = [knobs = space.knobs, split_width](const Config& config) {
      if (knob_int(knobs, config, "split_k") == 1) return true;
      const int64_t k_part = knob_int(knobs, config, "tile_k");
      return knob_int(knobs, config, "tile_x") == split_width &&
             knob_int(knobs, config, "pack_b") == 0 &&
             knob_int(knobs, config, "parallel_rows") == 0 && k_part >= 4 &&
             knob_int(knobs, config, "split_k") * k_part <= 128;
    };
  }
  std::vector<std::pair<std::string, std::vector<int64_t>>> defaults = {
      {"tile_y", {mb}},
      {"tile_x", {default_cols}},
      {"tile_k", {default_k}},
      {"pack_b", {default_parts == 1 && (s.b_stage || (packable && pack)) ? 1 : 0}},
      {"parallel_rows", {default_parts == 1 && !pack ? 1 : 0}}};
  if (parts.size() > 1) defaults.push_back({"split_k", {default_parts}});
  space.default_config = require_config(space, defaults);
  space.apply = [s, outputs, lanes, row_vectors = gemv_vectors(vu), split = parts.size() > 1,
                 knobs = space.knobs](Schedule& sch, const Config& config) {
    MatmulKnobs k;
    k.vector_lanes = lanes;
    k.row_vectors = row_vectors;
    k.rows = knob_int(knobs, config, "tile_y");
    k.cols = knob_int(knobs, config, "tile_x");
    k.k_inner = knob_int(knobs, config, "tile_k");
    k.pack_b = knob_int(knobs, config, "pack_b") != 0;
    k.parallel_rows = knob_int(knobs, config, "parallel_rows") != 0;
    if (split) k.split_k = knob_int(knobs, config, "split_k");
    if (k.split_k > 1)
      apply_split_k(sch, s, outputs, k);
    else
      apply_matmul(sch, s, outputs, k);
  };
  return space;
}

}  // namespace

SearchSpace matmul_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                            const VectorUnit& vector_unit) {
  te::Tensor mm = find_tagged(anchor, {"matmul"});
  if (!mm.defined()) return generic_template(anchor, outputs, vector_unit);
  return matmul_space(matmul_shape(mm, outputs), outputs, vector_unit);
}

}  // namespace lathe::topi
