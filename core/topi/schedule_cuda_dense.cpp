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
  return cuda_default_template(anchor, outputs, vector_unit);
}

}  // namespace lathe::topi
