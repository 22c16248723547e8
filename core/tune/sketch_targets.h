// What Ansor's sketch rules look at in a computation (TVM auto_scheduler's
// sketch_policy_rules conditions): the stages with a reduction, which the
// rules tile on several levels, whether a group output consumes one of them
// elementwise (so it can carry the reduction's outer tile loops), and the
// outputs without a reduction, which get loops of their own.
#pragma once

#include <cstdint>
#include <vector>

#include "te/tensor.h"

namespace lathe::tune::sketch {

// What a sketch does with one reduction ("data reuse") stage.
enum class TileRule : uint8_t {
  FuseConsumer,  // the elementwise output consumer carries the outer tile loops
  CacheWrite,    // a local cache accumulates; the stage becomes its copy-out
  Plain,         // the stage itself, multi-level tiled at the root
};
const char* rule_name(TileRule rule);

struct ReductionStage {
  te::Operation op;
  // The group output that reads `op` at its own point (same shape, same
  // indices) through `path`: injective stages, each with that one reader,
  // consumers first. Undefined when no output does so.
  te::Operation consumer;
  std::vector<te::Operation> path;
  std::vector<TileRule> rules;  // the choices the sketches make for it, preferred first
};

struct SketchTargets {
  std::vector<ReductionStage> reductions;          // producers first
  std::vector<te::Operation> elementwise_outputs;  // outputs without a reduction
};

SketchTargets find_sketch_targets(const std::vector<te::Tensor>& outputs);

}  // namespace lathe::tune::sketch
