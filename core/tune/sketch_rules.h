// Ansor's sketch rules for the CPU as schedule primitives (TVM auto_scheduler's
// sketch_policy_rules and the annotations of its initial population): always
// inline, multi-level tiling "SSRSRS", fuse consumer, cache write, then the
// outer tile levels fused into a parallel loop, the innermost spatial tile in
// vectors and an auto-unroll pragma on the outermost loop. The tile sizes and
// loop parameters come from a point of the sketch search space.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/schedule.h"
#include "tune/sketch_targets.h"

namespace lathe::tune::sketch {

// Tile sizes of one axis, outermost first: four levels (S0 S1 S2 S3) for a
// spatial axis of a reduction, two (R0 R1) for a reduce axis, two (outer,
// lanes) for the innermost axis of a stage without reduction.
using TileSizes = std::vector<int64_t>;

// RuleAlwaysInline: every injective stage that is not an output is inlined,
// except the paths to the consumers that reductions tiled with FuseConsumer
// attach at (`rules[i]` is the rule of targets.reductions[i]).
void inline_injective(schedule::Schedule& sch, const SketchTargets& targets,
                      const std::vector<TileRule>& rules);

// Multi-level tiling of a reduction stage, loop order S0 S1 R0 S2 R1 S3, under
// `rule`; `spatial[i]` tiles the op's axis i, `reduce[i]` its reduce axis i.
// The outer `parallel_levels` (1 or 2) spatial levels fuse into one parallel loop.
void tile_reduction(schedule::Schedule& sch, const ReductionStage& stage, TileRule rule,
                    const std::vector<TileSizes>& spatial, const std::vector<TileSizes>& reduce,
                    int parallel_levels);

// A stage without reduction at the root: its innermost axis split into
// `inner` = {outer, lanes}, the lanes in vectors; the outer axes (and with
// parallel_levels 2 the innermost axis's outer part) fused into a parallel loop.
void tile_elementwise(schedule::Schedule& sch, const te::Operation& op, const TileSizes& inner,
                      int parallel_levels);

// pragma auto_unroll_max_step on the outermost loop of every root stage;
// nothing for 0.
void annotate_auto_unroll(schedule::Schedule& sch, int64_t max_step);

}  // namespace lathe::tune::sketch
