// The default GPU schedule (cuda kind) for a fused group, after TVM's
// topi/cuda/injective.py: the group's injective stages inlined into its one
// output, whose data axes are fused into one loop and split into blocks of
// `threads` threads (blockIdx.x, threadIdx.x). Reductions keep their reduce
// loops inside the thread: one thread per output element (TVM's cross-thread
// reductions are planned). It is the template of every op under
// the cuda kind until an op registers its own (OpStrategy::template_for).
#pragma once

#include <vector>

#include "support/vector_unit.h"
#include "te/tensor.h"
#include "topi/config_space.h"

namespace lathe::topi {

// "injective.cuda" or "reduction.cuda"; knob `threads` (per block). A
// reduction that is not the output is computed inside the output's thread
// loop (compute_at), so every group is one kernel. A group of several
// outputs takes cuda_multi_output_template.
SearchSpace cuda_default_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                                  const VectorUnit& vector_unit);

// "injective_outputs.cuda" (schedule_cuda_multi_output.cpp): several outputs
// of an injective group (Split's parts), each output's axes fused and split
// into blocks of `threads` threads, the other stages inlined. One launch
// covers the longest output; threads past a shorter one's extent skip it.
// Throws UnsupportedError naming the group when a stage reduces or an output
// reads another (one kernel's blocks cannot wait for each other).
SearchSpace cuda_multi_output_template(const te::Tensor& anchor,
                                       const std::vector<te::Tensor>& outputs,
                                       const VectorUnit& vector_unit);

}  // namespace lathe::topi
