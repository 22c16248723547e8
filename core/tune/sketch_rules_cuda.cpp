#include "tune/sketch_rules_cuda.h"

#include "support/error.h"

namespace lathe::tune::sketch {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

IterVar fuse_all(Stage& stage, const std::vector<IterVar>& axes) {
  LATHE_CHECK(!axes.empty(), "sketch: stage '", stage.op()->name, "' has no axis to fuse");
  IterVar fused = axes[0];
  for (size_t i = 1; i < axes.size(); ++i) fused = stage.fuse(fused, axes[i]);
  return fused;
}

int64_t product(const std::vector<int64_t>& v, size_t from) {
  int64_t n = 1;
  for (size_t i = from; i < v.size(); ++i) n *= v[i];
  return n;
}

Stage the_output(Schedule& sch) {
  Stage output;
  int outputs = 0;
  for (Stage st : sch.stages())
    if (st.node().is_output) {
      output = st;
      ++outputs;
    }
  LATHE_CHECK(outputs == 1, "sketch: GPU sketches schedule groups of one output, this one has ",
              outputs);
  return output;
}

}  // namespace

void inline_all_but(Schedule& sch, const te::Operation& keep) {
  for (Stage st : sch.stages())
    if (st.op().as_compute() && !st.node().is_output && !st.op().same_as(keep)) st.compute_inline();
}

void tile_reduction_gpu(Schedule& sch, const te::Operation& reduction, const GpuTiles& spatial,
                        const GpuTiles& reduce, bool unroll) {
  Stage product_stage = sch.stage_of(reduction);
  const std::vector<te::Tensor> operands = reduction.input_tensors();
  const bool is_output = product_stage.node().is_output;
  const te::Tensor local = sch.cache_write(te::Tensor(reduction), "local");
  if (!is_output) product_stage.compute_inline();  // the copy, into the epilogue
  Stage output = the_output(sch);
  Stage acc = sch[local];

  const std::vector<IterVar> axes = output.axis();
  LATHE_CHECK(axes.size() == spatial.size(), "sketch: ", spatial.size(), " tiles for ", axes.size(),
              " axes of '", output.op()->name, "'");
  std::vector<IterVar> level[5];
  for (size_t i = 0; i < axes.size(); ++i) {
    const std::vector<int64_t>& t = spatial[i];
    LATHE_CHECK(t.size() == 5, "sketch: axis '", axes[i].name(), "' needs 5 tile sizes, has ",
                t.size());
    auto [a0, r1] = output.split(axes[i], product(t, 1));
    auto [a1, r2] = output.split(r1, product(t, 2));
    auto [a2, r3] = output.split(r2, t[3] * t[4]);
    auto [a3, a4] = output.split(r3, t[4]);
    level[0].push_back(a0);
    level[1].push_back(a1);
    level[2].push_back(a2);
    level[3].push_back(a3);
    level[4].push_back(a4);
  }
  std::vector<IterVar> order;
  for (const auto& l : level) order.insert(order.end(), l.begin(), l.end());
  output.reorder(order);
  output.bind(fuse_all(output, level[0]), "blockIdx.x");
  output.bind(fuse_all(output, level[1]), "vthread");
  const IterVar tx = fuse_all(output, level[2]);
  output.bind(tx, "threadIdx.x");
  acc.compute_at(output, tx);

  // The accumulation: R0 R1 S3 R2 S4 inside the thread.
  const std::vector<IterVar> acc_axes = acc.axis();
  const std::vector<IterVar> acc_reduce = acc.reduce_axis();
  LATHE_CHECK(acc_reduce.size() == reduce.size(), "sketch: ", reduce.size(), " tiles for ",
              acc_reduce.size(), " reduce axes");
  std::vector<IterVar> s3, s4, r0, r1, r2;
  for (size_t i = 0; i < acc_axes.size(); ++i) {
    auto [o, in] = acc.split(acc_axes[i], spatial[i][4]);
    s3.push_back(o);
    s4.push_back(in);
  }
  for (size_t i = 0; i < acc_reduce.size(); ++i) {
    const std::vector<int64_t>& t = reduce[i];
    auto [k0, rest] = acc.split(acc_reduce[i], t[1] * t[2]);
    auto [k1, k2] = acc.split(rest, t[2]);
    r0.push_back(k0);
    r1.push_back(k1);
    r2.push_back(k2);
  }
  std::vector<IterVar> acc_order;
  for (const auto* part : {&r0, &r1, &s3, &r2, &s4})
    acc_order.insert(acc_order.end(), part->begin(), part->end());
  acc.reorder(acc_order);
  if (unroll) {
    for (const IterVar& v : r2) acc.unroll(v);
    for (const IterVar& v : s4) acc.unroll(v);
  }

  // Cooperative fetching: each step of R0, the block's threads load what the
  // step reads of every operand into shared memory together (once for all
  // the virtual threads: the fetch does not depend on them).
  int64_t threads = 1;
  for (const std::vector<int64_t>& t : spatial) threads *= t[2];
  for (const te::Tensor& operand : operands) {
    const te::Tensor shared = sch.cache_read(operand, "shared", {local.op()});
    Stage fetch = sch[shared];
    fetch.compute_at(acc, r0.back());
    auto [rest, lane] = fetch.split(fuse_all(fetch, fetch.axis()), threads);
    fetch.bind(lane, "threadIdx.x");
  }
}

void cross_thread_reduction(Schedule& sch, const te::Operation& reduction, int64_t threads_k,
                            int64_t per_block) {
  Stage product_stage = sch.stage_of(reduction);
  Stage output = the_output(sch);
  auto [blocks, outputs] = output.split(fuse_all(output, output.axis()), per_block);
  output.bind(blocks, "blockIdx.x");
  if (!product_stage.node().is_output) {
    // The epilogue's store by one of the threads that share an output.
    auto [each, one] = output.split(outputs, 1);
    output.bind(each, "threadIdx.y");
    output.bind(one, "threadIdx.x");
    product_stage.compute_at(output, each);
  } else {
    output.bind(outputs, "threadIdx.y");
  }
  auto [ko, ki] =
      product_stage.split(fuse_all(product_stage, product_stage.reduce_axis()), threads_k);
  product_stage.bind(ki, "threadIdx.x");
}

void spread_elementwise(Schedule& sch, int64_t threads, int64_t per_thread) {
  Stage output = the_output(sch);
  auto [blocks, rest] = output.split(fuse_all(output, output.axis()), threads * per_thread);
  auto [step, lane] = output.split(rest, threads);
  output.reorder({blocks, lane, step});
  output.bind(blocks, "blockIdx.x");
  output.bind(lane, "threadIdx.x");
  if (per_thread > 1) output.unroll(step);
}

}  // namespace lathe::tune::sketch
