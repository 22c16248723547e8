// The template-free search space of a cuda task (--enable-autoscheduler with
// --target cuda): Ansor's GPU sketches (tune/sketch_rules_cuda.h) of a fused
// group, and a point's tile sizes and thread counts.
#pragma once

#include <vector>

#include "codegen/target.h"
#include "te/tensor.h"
#include "topi/config_space.h"

namespace lathe::tune {

// Knobs, in this order:
//   sketch                 which rule the group takes: multi-level tiling (a
//                          reduction with data reuse: two or more operands),
//                          cross-thread reduction (32 or more terms an
//                          output), or elementwise (no reduction)
//   <stage>.<axis>         multi-level tiling: S0 S1 S2 S3 S4 per spatial
//                          axis (blocks, virtual threads, threads, register
//                          tile), R0 R1 R2 per reduce axis
//   unroll                 multi-level tiling: unroll the register loops
//   threads_k, outputs_per_block   cross-thread reduction
//   threads, per_thread    elementwise
// The constraint keeps the block's threads within the target's limit (and at
// least a warp where the output has that many elements), at most 8 virtual
// threads, a thread's register tiles (all its virtual threads') at most 64
// values and a step's shared tiles within the target's
// shared memory (each operand's footprint from its index expressions, linear
// in the tiles, as bound inference sizes the cache_read); the GPU verifier
// still checks every built candidate before it is measured (tune/gpu_task.h).
// Throws lathe::UnsupportedError for a group the rules do not cover: more
// than one output, more than one reduction (softmax, layer norm: the cuda
// templates keep them), a reduction to a scalar.
topi::SearchSpace gpu_sketch_search_space(const std::vector<te::Tensor>& outputs,
                                          const codegen::Target& target);

}  // namespace lathe::tune
