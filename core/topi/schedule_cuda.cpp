#include "topi/schedule_cuda.h"

#include <algorithm>

#include "schedule/schedule.h"
#include "support/error.h"
#include "topi/group_schedule.h"

namespace lathe::topi {

namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

}  // namespace

SearchSpace cuda_default_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                  const VectorUnit& vector_unit) {
  if (outputs.size() != 1) return cuda_multi_output_template(anchor, outputs, vector_unit);
  bool reduces = false;
  Schedule probe({outputs[0].op()});
  for (Stage st : probe.stages())
    if (const te::ComputeOpNode* c = st.op().as_compute(); c && !c->reduce_axis.empty())
      reduces = true;
  // A scalar reduction's threads share its terms (a cross-thread reduction).
  int64_t elements = outputs[0].numel();
  if (const te::ComputeOpNode* c = outputs[0].op().as_compute();
      c && outputs[0].shape().empty() && !c->reduce_axis.empty())
    for (const IterVar& k : c->reduce_axis) elements *= *te::as_const_int(k->dom.extent);

  SearchSpace space;
  space.name = reduces ? "reduction.cuda" : "injective.cuda";
  space.knobs.push_back(choice_knob("threads", {32, 64, 128, 256, 512, 1024}));
  // 256 threads a block, as TVM's default for injective ops on most GPUs,
  // fewer for an output that would not fill them.
  int64_t threads = 32;
  while (threads < 256 && threads < elements) threads *= 2;
  space.default_config = require_config(space, {{"threads", {threads}}});
  space.apply = [knobs = space.knobs](Schedule& sch, const Config& config) {
    const int64_t threads_per_block = knob_int(knobs, config, "threads");
    Stage out;
    for (Stage st : sch.stages())
      if (st.node().is_output) out = st;
    std::vector<IterVar> axis = out.axis();
    if (axis.empty()) {
      // A scalar: one block computes it, its injective inputs inlined. A
      // reduction to it spans the block's threads (a cross-thread
      // reduction); anything else runs in one thread (the verifier bounds
      // its work).
      for (Stage st : sch.stages())
        if (const te::ComputeOpNode* c = st.op().as_compute();
            c && c->reduce_axis.empty() && !st.node().is_output)
          st.compute_inline();
      std::vector<IterVar> k = out.reduce_axis();
      if (k.empty()) return;
      int64_t terms = 1;
      for (const IterVar& r : k) terms *= *te::as_const_int(r->dom.extent);
      if (terms < 32) return;
      IterVar fused = k[0];
      for (size_t i = 1; i < k.size(); ++i) fused = out.fuse(fused, k[i]);
      // A power of two: the warps' butterfly takes the combination.
      int64_t threads = 32;
      while (threads * 2 <= std::min(threads_per_block, terms)) threads *= 2;
      auto [ko, ki] = out.split(fused, threads);
      out.bind(ki, "threadIdx.x");
      return;
    }
    IterVar fused = axis[0];
    for (size_t i = 1; i < axis.size(); ++i) fused = out.fuse(fused, axis[i]);
    auto [blocks, threads] = out.split(fused, threads_per_block);
    out.bind(blocks, "blockIdx.x");
    out.bind(threads, "threadIdx.x");
    // A reduction (dense before its bias, softmax's max and sum) is computed
    // by each thread for the elements it needs, inside its own loop: one
    // kernel, no device scratch between launches. So are the injective
    // stages that read a reduction, through which it reaches the output (an
    // attached stage's reader must be attached, not inlined); the others inline.
    OpSet after_reduction;
    std::vector<Stage> attached;
    for (Stage st : sch.stages()) {
      const te::ComputeOpNode* c = st.op().as_compute();
      if (!c || st.node().is_output) continue;
      bool reads_reduction = false;
      for (const te::Tensor& input : st.op().input_tensors())
        if (after_reduction.count(input.op())) reads_reduction = true;
      if (c->reduce_axis.empty() && !reads_reduction) {
        st.compute_inline();
        continue;
      }
      after_reduction.insert(st.op());
      attached.push_back(st);
    }
    // Consumers first: each is attached by the time its producer asks.
    for (auto it = attached.rbegin(); it != attached.rend(); ++it) it->compute_at(out, threads);
  };
  return space;
}

}  // namespace lathe::topi
