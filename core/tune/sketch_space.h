// The template-free search space (--enable-autoscheduler), after Ansor: the
// sketches are the ways its rules (tune/sketch_rules.h) apply to a
// computation, and a point of the space picks a sketch, the tile sizes of
// every tiled axis and the loop annotations. The tuner's evolutionary search
// walks this space like any template's.
#pragma once

#include <vector>

#include "support/vector_unit.h"
#include "te/tensor.h"
#include "topi/config_space.h"

namespace lathe::tune {

// Ansor's sketch rules applied to a computation (a fused group's output
// tensors; the schedule `apply` receives is a fresh schedule::Schedule over
// the same outputs' ops). The knobs, in this order:
//   sketch                  which rule each reduction stage gets: fuse-consumer
//                           or cache-write where an elementwise output consumes
//                           it, else cache-write or plain tiling at the root
//   <stage>.<axis>          per reduction stage: its spatial axes' tile sizes
//                           S0 S1 S2 S3 and its reduce axes' R0 R1
//   <output>.<axis>         per output without reduction: its innermost axis
//                           as {outer, vector lanes}
//   parallel_levels         how many outer tile levels fuse into the parallel loop
//   auto_unroll_max_step    0, 16, 64 or 512
topi::SearchSpace sketch_search_space(const std::vector<te::Tensor>& outputs,
                                      const VectorUnit& vector_unit = {});

}  // namespace lathe::tune
