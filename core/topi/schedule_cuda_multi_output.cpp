// The cuda template of a group with several outputs (schedule_cuda.h).
#include <algorithm>

#include "schedule/schedule.h"
#include "support/error.h"
#include "topi/group_schedule.h"
#include "topi/schedule_cuda.h"

namespace lathe::topi {

namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

// Why `outputs` cannot be one kernel's independent parts, or empty: a
// scalar, a reduction, or an output that reads another (one kernel's blocks
// cannot wait for each other's writes).
std::string why_not_independent(const std::vector<te::Tensor>& outputs) {
  OpSet output_ops;
  for (const te::Tensor& out : outputs) output_ops.insert(out.op());
  for (const te::Tensor& out : outputs) {
    if (out.shape().empty())
      return str("its output '", out.name(), "' is a scalar, which no thread index spans");
    OpSet seen;
    std::vector<te::Operation> stack = {out.op()};
    while (!stack.empty()) {
      const te::Operation op = stack.back();
      stack.pop_back();
      if (!seen.insert(op).second) continue;
      const te::ComputeOpNode* c = op.as_compute();
      if (!c) continue;
      if (!c->reduce_axis.empty())
        return str("its stage '", op->name, "' reduces (a reduction feeding several outputs ",
                   "would be computed again for each element)");
      for (const te::Tensor& in : op.input_tensors()) {
        if (output_ops.count(in.op()) && !in.op().same_as(out.op()))
          return str("its output '", out.name(), "' reads its output '", in.name(), "'");
        stack.push_back(in.op());
      }
    }
  }
  return {};
}

}  // namespace

SearchSpace cuda_multi_output_template(const te::Tensor& anchor,
                                       const std::vector<te::Tensor>& outputs, const VectorUnit&) {
  if (const std::string why = why_not_independent(outputs); !why.empty())
    throw UnsupportedError(str("cuda: the group of '", anchor.name(), "' has ", outputs.size(),
                               " outputs and ", why, "; such a group is not one GPU kernel"));
  int64_t longest = 1;
  for (const te::Tensor& out : outputs) longest = std::max(longest, out.numel());
  SearchSpace space;
  space.name = "injective_outputs.cuda";
  space.knobs.push_back(choice_knob("threads", {32, 64, 128, 256, 512, 1024}));
  int64_t threads = 32;
  while (threads < 256 && threads < longest) threads *= 2;
  space.default_config = require_config(space, {{"threads", {threads}}});
  space.apply = [knobs = space.knobs](Schedule& sch, const Config& config) {
    const int64_t threads_per_block = knob_int(knobs, config, "threads");
    for (Stage st : sch.stages()) {
      if (!st.op().as_compute()) continue;
      if (!st.node().is_output) {
        st.compute_inline();
        continue;
      }
      const std::vector<IterVar> axis = st.axis();
      IterVar fused = axis[0];
      for (size_t i = 1; i < axis.size(); ++i) fused = st.fuse(fused, axis[i]);
      auto [blocks, thread] = st.split(fused, threads_per_block);
      st.bind(blocks, "blockIdx.x");
      st.bind(thread, "threadIdx.x");
    }
  };
  return space;
}

}  // namespace lathe::topi
