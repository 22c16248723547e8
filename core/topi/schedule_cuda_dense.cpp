// The cuda template of matrix products (schedule_cuda_templates.h), after
// TVM's topi/cuda/dense.py (dense_small_batch) and batch_matmul.py.
#include <algorithm>

#include "schedule/schedule.h"
#include "support/error.h"
#include "te/expr_functor.h"
#include "topi/group_schedule.h"
#include "topi/schedule_cuda.h"
#include "topi/schedule_cuda_templates.h"

namespace lathe::topi {

namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

// Output rows (all axes but the last) up to which a product is "small": a
// matrix-vector product per row, which one warp per output does best.
constexpr int64_t kSmallRows = 16;
// Blocks a tiled product's default tiles aim for at least.
constexpr int64_t kBlocksToFill = 128;

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= dims[i];
  return n;
}

// Whether the product reads its second operand with k as the last
// (contiguous) index: a Gemm of transB (PyTorch's Linear, [N, K] weights) or
// a MatMul whose B is transposed in the group. Then the threads of a warp
// that share an output and split its k read consecutive floats.
bool second_operand_k_contiguous(const te::Tensor& mm) {
  const te::ComputeOpNode* c = mm.op().as_compute();
  const std::vector<te::Tensor> inputs = mm.op().input_tensors();
  if (!c || c->reduce_axis.size() != 1 || inputs.size() < 2) return false;
  const te::Tensor& b = inputs[1];
  if (tag_of(b) == "transpose_b") return true;
  bool contiguous = false, read = false;
  te::visit_expr(c->body, [&](const te::Expr& e) {
    const auto* load = e.as<te::ProducerLoadNode>();
    if (!load || !load->producer.same_as(b.op()) || load->indices.empty()) return;
    read = true;
    contiguous = load->indices.back().same_as(c->reduce_axis[0].var());
  });
  return read && contiguous;
}

IterVar fuse_all(Stage& stage, const std::vector<IterVar>& axes) {
  IterVar fused = axes[0];
  for (size_t i = 1; i < axes.size(); ++i) fused = stage.fuse(fused, axes[i]);
  return fused;
}

// TVM's dense_small_batch: each output's k split over threads that combine
// their partial sums (a cross-thread reduction), a block holding several
// outputs. Which thread index takes k follows B's layout, so that a warp
// reads consecutive floats: with k contiguous (B of [N, K]) a warp of
// threadIdx.x shares an output and splits its k (butterfly shuffles); with
// the outputs' columns contiguous (B of [K, N]) threadIdx.x runs over 32
// columns and threadIdx.y splits k (partials through shared memory).
SearchSpace small_product(const te::Tensor& mm, int64_t k, bool k_contiguous) {
  SearchSpace space;
  space.name = "dense_small.cuda";
  space.knobs.push_back(choice_knob("threads_k", {4, 8, 16, 32, 64, 128, 256}));
  space.knobs.push_back(choice_knob("outputs_per_block", {1, 2, 4, 8, 16, 32, 64}));
  int64_t most = 4;  // threads over k: a power of two, at most k
  while (most * 2 <= k && most < 256) most *= 2;
  space.default_config =
      k_contiguous ? require_config(space, {{"threads_k", {32}}, {"outputs_per_block", {8}}})
                   : require_config(space, {{"threads_k", {8}}, {"outputs_per_block", {32}}});
  space.constraint = [knobs = space.knobs, most](const Config& c) {
    const int64_t threads =
        std::min(knob_int(knobs, c, "threads_k"), most) * knob_int(knobs, c, "outputs_per_block");
    return threads >= 32 && threads <= 1024;
  };
  space.apply = [knobs = space.knobs, mm_op = mm.op(), most, k_contiguous](Schedule& sch,
                                                                           const Config& config) {
    // Over threadIdx.x, a butterfly needs at least a power of two; the
    // outputs of a block over threadIdx.x want a warp's width.
    int64_t threads_k = std::min(knob_int(knobs, config, "threads_k"), most);
    const int64_t per_block = knob_int(knobs, config, "outputs_per_block");
    const char* k_tag = k_contiguous ? "threadIdx.x" : "threadIdx.y";
    const char* out_tag = k_contiguous ? "threadIdx.y" : "threadIdx.x";
    Stage output, product;
    for (Stage st : sch.stages()) {
      if (!st.op().as_compute()) continue;
      if (st.op().same_as(mm_op)) product = st;
      if (st.node().is_output)
        output = st;
      else if (!st.op().same_as(mm_op))
        st.compute_inline();  // the transposed B, the bias and activation
    }
    auto [blocks, outputs] = output.split(fuse_all(output, output.axis()), per_block);
    output.bind(blocks, "blockIdx.x");
    if (output.ref() != product.ref()) {
      // The epilogue's store by one of the threads that share an output.
      auto [each, one] = output.split(outputs, 1);
      output.bind(each, out_tag);
      output.bind(one, k_tag);
      product.compute_at(output, each);
    } else {
      output.bind(outputs, out_tag);
    }
    auto [ko, ki] = product.split(product.reduce_axis()[0], threads_k);
    product.bind(ki, k_tag);
  };
  return space;
}

// TVM's batch_matmul / dense_large_batch: a tile_i x tile_j tile of the
// output per block, its threads in a grid of (tile_i / block_i) x
// (tile_j / block_j), each accumulating a block_i x block_j block in
// registers (a local cache_write, its loops unrolled) over steps of tile_k,
// for which the block's threads fetch the step's tiles of A and B into
// shared memory together (barriers around the step's use). With `vthreads`
// v > 1 (TVM's batch_matmul vthread), each axis of the tile is split into v
// virtual threads outermost: a thread's block is v x v sub-blocks a tile / v
// apart, interleaved in its code (tir/transform/inject_virtual_thread.h), so
// the threads of a warp read shared words block / v apart instead of block.
SearchSpace tiled_product(const te::Tensor& mm, const std::vector<int64_t>& shape,
                          bool k_contiguous) {
  SearchSpace space;
  space.name = "dense_tiled.cuda";
  space.knobs.push_back(choice_knob("tile_i", {16, 32, 64, 128}));
  space.knobs.push_back(choice_knob("tile_j", {16, 32, 64, 128}));
  space.knobs.push_back(choice_knob("block_i", {1, 2, 4, 8}));
  space.knobs.push_back(choice_knob("block_j", {1, 2, 4, 8}));
  space.knobs.push_back(choice_knob("tile_k", {4, 8, 16, 32}));
  // Whether a step's k loop (tile_k products into the register block) is
  // unrolled. Untuned: not.
  space.knobs.push_back(choice_knob("unroll_k", {0, 1}));
  // Virtual threads per axis of the tile. Untuned: none.
  space.knobs.push_back(choice_knob("vthreads", {1, 2, 4}));
  const size_t rank = shape.size();
  // Rows and columns of the output's tile: 64 x 64 as TVM's default, at
  // most the product's (a power of two), in 16 x 16 threads of up to 4 x 4 outputs;
  // halved (the longer side first) while the blocks would not give every
  // multiprocessor of a large GPU (132 on an H100) about one.
  auto tile_for = [](int64_t extent) {
    int64_t t = 16;
    while (t < 64 && t * 2 <= extent) t *= 2;
    return t;
  };
  int64_t ti = tile_for(shape[rank - 2]), tj = tile_for(shape[rank - 1]);
  const int64_t batch = product(shape, 0, rank - 2);
  auto blocks = [&] {
    return batch * ((shape[rank - 2] + ti - 1) / ti) * ((shape[rank - 1] + tj - 1) / tj);
  };
  while (blocks() < kBlocksToFill && (ti > 16 || tj > 16)) (tj >= ti && tj > 16 ? tj : ti) /= 2;
  space.default_config = require_config(space, {{"tile_i", {ti}},
                                                {"tile_j", {tj}},
                                                {"block_i", {ti / 16}},
                                                {"block_j", {tj / 16}},
                                                {"tile_k", {8}},
                                                {"unroll_k", {0}},
                                                {"vthreads", {1}}});
  // The threads of a block on one axis: the tile's extent (at most the
  // axis's: a split by more leaves the axis's) over the register block. The
  // output's thread loops and the fetches' must have these same extents: a
  // shorter output loop would be guarded, and the k loop's barriers inside
  // it unreachable for some threads.
  const int64_t rows = shape[rank - 2], columns = shape[rank - 1];
  auto threads_on = [](int64_t tile, int64_t extent, int64_t block) {
    return (std::min(tile, extent) + block - 1) / block;
  };
  space.constraint = [knobs = space.knobs, rows, columns, threads_on](const Config& c) {
    const int64_t threads =
        threads_on(knob_int(knobs, c, "tile_i"), rows, knob_int(knobs, c, "block_i")) *
        threads_on(knob_int(knobs, c, "tile_j"), columns, knob_int(knobs, c, "block_j"));
    // Virtual threads divide each register block, and the tile lies within
    // the product (a partial tile would guard the thread loops).
    const int64_t v = knob_int(knobs, c, "vthreads");
    const bool vthreads_fit =
        v == 1 ||
        (knob_int(knobs, c, "block_i") % v == 0 && knob_int(knobs, c, "block_j") % v == 0 &&
         knob_int(knobs, c, "tile_i") <= rows && knob_int(knobs, c, "tile_j") <= columns);
    return threads >= 32 && threads <= 1024 && vthreads_fit;
  };
  space.apply = [knobs = space.knobs, mm_op = mm.op(), rank, k_contiguous, rows, columns,
                 threads_on](Schedule& sch, const Config& config) {
    const int64_t tile_i = knob_int(knobs, config, "tile_i");
    const int64_t tile_j = knob_int(knobs, config, "tile_j");
    const int64_t block_i = knob_int(knobs, config, "block_i");
    const int64_t block_j = knob_int(knobs, config, "block_j");
    const int64_t tile_k = knob_int(knobs, config, "tile_k");
    const int64_t threads_i = threads_on(tile_i, rows, block_i);
    const int64_t threads_j = threads_on(tile_j, columns, block_j);
    Stage product;
    for (Stage st : sch.stages()) {
      if (!st.op().as_compute()) continue;
      if (st.op().same_as(mm_op))
        product = st;
      else if (!st.node().is_output)
        st.compute_inline();  // the transposed operands, the bias and activation
    }
    const std::vector<te::Tensor> operands = product.op().input_tensors();
    const bool product_is_output = product.node().is_output;
    // The accumulators; the product's own stage becomes their copy, which
    // the epilogue inlines.
    const te::Tensor local = sch.cache_write(te::Tensor(mm_op), "local");
    if (!product_is_output) product.compute_inline();
    Stage output;
    for (Stage st : sch.stages())
      if (st.node().is_output) output = st;
    Stage accumulate = sch[local];

    std::vector<IterVar> axes = output.axis();
    std::vector<IterVar> order;
    if (rank > 2) {
      const IterVar batch = fuse_all(output, std::vector<IterVar>(axes.begin(), axes.end() - 2));
      output.bind(batch, "blockIdx.z");
      order.push_back(batch);
    }
    auto [io, ii] = output.split(axes[rank - 2], tile_i);
    auto [jo, ji] = output.split(axes[rank - 1], tile_j);
    const int64_t v = knob_int(knobs, config, "vthreads");
    order.insert(order.end(), {io, jo});
    if (v > 1) {  // without, the untuned schedule stays as it was
      auto [vy, rest_i] = output.split_nparts(ii, v);
      auto [vx, rest_j] = output.split_nparts(ji, v);
      order.insert(order.end(), {vy, vx});
      output.bind(vy, "vthread");
      output.bind(vx, "vthread");
      ii = rest_i;
      ji = rest_j;
    }
    auto [ty, ri] = output.split(ii, block_i / v);
    auto [tx, rj] = output.split(ji, block_j / v);
    order.insert(order.end(), {ty, tx, ri, rj});
    output.reorder(order);
    output.bind(io, "blockIdx.y");
    output.bind(jo, "blockIdx.x");
    output.bind(ty, "threadIdx.y");
    output.bind(tx, "threadIdx.x");
    accumulate.compute_at(output, tx);

    const std::vector<IterVar> acc_axes = accumulate.axis();
    auto [ko, ki] = accumulate.split(accumulate.reduce_axis()[0], tile_k);
    std::vector<IterVar> acc_order(acc_axes.begin(), acc_axes.end() - 2);
    acc_order.insert(acc_order.end(), {ko, ki, acc_axes[rank - 2], acc_axes[rank - 1]});
    accumulate.reorder(acc_order);
    accumulate.unroll(acc_axes[rank - 2]);
    accumulate.unroll(acc_axes[rank - 1]);
    if (knob_int(knobs, config, "unroll_k")) accumulate.unroll(ki);

    // The step's tiles of A and B, fetched by all the block's threads.
    for (size_t operand = 0; operand < 2 && operand < operands.size(); ++operand) {
      const te::Tensor shared = sch.cache_read(operands[operand], "shared", {local.op()});
      Stage fetch = sch[shared];
      fetch.compute_at(accumulate, ko);
      std::vector<IterVar> fetch_axes = fetch.axis();
      // B of [N, K] (read transposed): k innermost, so that a warp reads
      // consecutive floats.
      if (operand == 1 && k_contiguous && fetch_axes.size() >= 2) {
        std::swap(fetch_axes[fetch_axes.size() - 1], fetch_axes[fetch_axes.size() - 2]);
        fetch.reorder(fetch_axes);
      }
      auto [rest, lanes] = fetch.split(fuse_all(fetch, fetch_axes), threads_i * threads_j);
      auto [fy, fx] = fetch.split(lanes, threads_j);
      fetch.bind(fy, "threadIdx.y");
      fetch.bind(fx, "threadIdx.x");
    }
  };
  return space;
}

}  // namespace

SearchSpace cuda_dense_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                const VectorUnit& vector_unit) {
  const te::Tensor mm = find_tagged(anchor, {"matmul", "matvec"});
  if (!mm.defined() || outputs.size() != 1 || outputs[0].shape() != mm.shape() ||
      mm.shape().empty())
    return cuda_default_template(anchor, outputs, vector_unit);
  const std::vector<int64_t>& shape = mm.shape();
  const int64_t rows = product(shape, 0, shape.size() - 1);
  const int64_t k = reduce_extent(mm, 0);
  if (k >= 32 && rows <= kSmallRows) return small_product(mm, k, second_operand_k_contiguous(mm));
  if (shape.size() >= 2 && shape[shape.size() - 2] >= 16 && shape.back() >= 16 && k >= 8)
    return tiled_product(mm, shape, second_operand_k_contiguous(mm));
  return cuda_default_template(anchor, outputs, vector_unit);
}

}  // namespace lathe::topi
