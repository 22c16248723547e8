// The generic template, for groups no x86 template claims (injective chains,
// pooling, reductions, softmax), after TVM's schedule_injective and its
// generic reduction schedules: injective stages that are not outputs are
// inlined; every other stage runs its outer data axes fused into one parallel
// loop and its innermost data axis in SIMD vectors. Its default config is
// apply_default_schedule (topi/default_schedule.h).
//
// Knobs, each applied to every such stage where it fits the stage's shape:
//   vector_lanes   lanes of the innermost data axis, where they divide it (1: scalar)
//   parallel_axes  outer data axes fused into the parallel loop, at most all but
//                  the innermost (0: no parallel loop)
//   unroll_inner   injective stages: the innermost loop outside the lanes split
//                  by this and the inner part unrolled, where it divides
//   transpose_tile injective stages that transpose (an input's contiguous index
//                  follows another axis than the innermost, as NCHW{b}c -> NCHW):
//                  a block of that axis between the outer loops and the vectors,
//                  unrolled, so each cache line gathered is used whole (0: off)
//   unroll_reduce  reductions: reduce loops of at most kSmallReduceExtent unrolled
//   reduce_outer   reductions: reduce loops outside the innermost data axis
//                  (one row of accumulators) instead of inside it
//   rfactor_lanes  reductions: the innermost reduce loop split into this many
//                  partial results, computed as vectors by an rfactor stage and
//                  then combined (0: not split), for rows reduced along their
//                  contiguous axis (softmax, layer norm's means)
#pragma once

#include <climits>
#include <vector>

#include "topi/config_space.h"
#include "topi/default_schedule.h"
#include "topi/group_schedule.h"

namespace lathe::topi {

// Reduce loops this short (pooling windows) are worth unrolling.
constexpr int64_t kSmallReduceExtent = 16;

struct StageKnobs {
  int64_t vector_lanes = VectorUnit{}.lanes();
  int parallel_axes = INT_MAX;  // all but the innermost
  int64_t unroll_inner = 1;
  bool transpose_tile = true;
  bool unroll_reduce = false;
  bool reduce_outer = false;
};

// Schedules one stage at the root that no primitive has touched; stages that
// are attached or inlined, or have no data axis, stay as they are.
void schedule_root_stage(schedule::Schedule& sch, schedule::Stage stage,
                         const StageKnobs& knobs = {});

// Every root stage of `sch` whose op is not in `done`, with the default knobs
// and vectors of `vector_lanes`: how the x86 templates schedule the group's
// stages they do not tile.
void schedule_remaining(schedule::Schedule& sch, const OpSet& done, int64_t vector_lanes);

// The space for the group computing `outputs` ("injective.x86", or
// "reduction.x86" when a stage reduces); `anchor` is not used.
SearchSpace generic_template(const te::Tensor& anchor, const std::vector<te::Tensor>& outputs,
                             const VectorUnit& vector_unit = {});

}  // namespace lathe::topi
