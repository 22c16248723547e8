#include "tune/sketch_space.h"

#include <limits>
#include <memory>
#include <set>
#include <unordered_set>

#include "support/error.h"
#include "topi/default_schedule.h"
#include "topi/nn.h"
#include "tune/sketch_rules.h"
#include "tune/sketch_targets.h"

namespace lathe::tune {
namespace {

using sketch::TileRule;
using sketch::TileSizes;

// The innermost spatial tile (the vector lanes) is at most this, which keeps
// a 4-level split's options in the hundreds for the usual extents.
constexpr int64_t kMaxInnerTile = 64;
// Sketches are every combination of the reductions' rule choices, up to this many.
constexpr size_t kMaxSketches = 16;
const std::vector<int64_t> kAutoUnrollSteps = {0, 16, 64, 512};
const std::vector<int64_t> kParallelLevels = {1, 2};
// The default point: a register tile of this many rows of the second
// innermost axis times one vector of the innermost, unrolled.
constexpr int64_t kDefaultTileRows = 4;
constexpr int64_t kDefaultAutoUnroll = 64;
constexpr size_t kNoKnob = std::numeric_limits<size_t>::max();

// Where each knob sits in the space's knob list.
struct KnobIndex {
  size_t sketch = 0;
  std::vector<std::vector<size_t>> spatial, reduce;  // per reduction stage, per axis
  std::vector<size_t> elementwise;                   // per elementwise output; kNoKnob for 0-d
  size_t parallel = 0, auto_unroll = 0;
};

// What `apply` needs, shared by every copy of the space.
struct SketchPlan {
  sketch::SketchTargets targets;
  std::vector<std::vector<TileRule>> sketches;  // one rule per reduction stage
  std::vector<topi::Knob> knobs;
  KnobIndex index;
};

std::vector<std::vector<TileRule>> enumerate_sketches(const sketch::SketchTargets& targets) {
  std::vector<std::vector<TileRule>> sketches = {{}};
  for (const sketch::ReductionStage& r : targets.reductions) {
    const size_t choices =
        sketches.size() * r.rules.size() <= kMaxSketches ? r.rules.size() : size_t{1};
    std::vector<std::vector<TileRule>> next;
    for (const std::vector<TileRule>& s : sketches)
      for (size_t c = 0; c < choices; ++c) {
        next.push_back(s);
        next.back().push_back(r.rules[c]);
      }
    sketches = std::move(next);
  }
  return sketches;
}

// Knobs with unique names, and the default config alongside.
class KnobList {
 public:
  size_t add(topi::Knob knob, const std::vector<int64_t>& default_value) {
    std::string name = knob.name;
    for (int n = 2; !names_.insert(name).second; ++n) name = knob.name + "_" + std::to_string(n);
    knob.name = name;
    int chosen = 0;
    for (size_t o = 0; o < knob.options.size(); ++o)
      if (knob.options[o] == default_value) chosen = static_cast<int>(o);
    knobs_.push_back(std::move(knob));
    default_.push_back(chosen);
    return knobs_.size() - 1;
  }
  std::vector<topi::Knob>& knobs() { return knobs_; }
  topi::Config& default_config() { return default_; }

 private:
  std::vector<topi::Knob> knobs_;
  topi::Config default_;
  std::set<std::string> names_;
};

// Default S0 S1 S2 S3: one vector of the innermost axis, a few rows of the
// one before it, the rest in the outermost (parallel) level.
TileSizes default_spatial_tile(int64_t extent, size_t axis, size_t rank, int64_t vector_lanes) {
  if (axis + 1 == rank) {
    const int64_t lanes = topi::largest_divisor(extent, vector_lanes);
    return {extent / lanes, 1, 1, lanes};
  }
  if (axis + 2 == rank) {
    const int64_t rows = topi::largest_divisor(extent, kDefaultTileRows);
    return {extent / rows, 1, rows, 1};
  }
  return {extent, 1, 1, 1};
}

int64_t reduce_extent(const te::IterVar& axis) {
  const int64_t* e = te::as_const_int(axis->dom.extent);
  LATHE_CHECK(e, "sketch: reduce axis '", axis.name(), "' has no constant extent");
  return *e;
}

void apply_sketch(const SketchPlan& plan, schedule::Schedule& sch, const topi::Config& config) {
  LATHE_CHECK(config.size() == plan.knobs.size(), "sketch: a config of ", config.size(),
              " values for ", plan.knobs.size(), " knobs");
  auto value = [&](size_t k) -> const std::vector<int64_t>& {
    const auto& options = plan.knobs[k].options;
    LATHE_CHECK(config[k] >= 0 && static_cast<size_t>(config[k]) < options.size(), "sketch: knob ",
                plan.knobs[k].name, " has no option ", config[k]);
    return options[static_cast<size_t>(config[k])];
  };
  const std::vector<TileRule>& rules =
      plan.sketches.at(static_cast<size_t>(value(plan.index.sketch)[0]));
  const int parallel_levels = static_cast<int>(value(plan.index.parallel)[0]);

  sketch::inline_injective(sch, plan.targets, rules);
  std::unordered_set<te::Operation, te::OperationHash, te::OperationEqual> tiled_as_consumer;
  for (size_t r = 0; r < plan.targets.reductions.size(); ++r) {
    const sketch::ReductionStage& stage = plan.targets.reductions[r];
    std::vector<TileSizes> spatial, reduce;
    for (size_t k : plan.index.spatial[r]) spatial.push_back(value(k));
    for (size_t k : plan.index.reduce[r]) reduce.push_back(value(k));
    sketch::tile_reduction(sch, stage, rules[r], spatial, reduce, parallel_levels);
    if (rules[r] == TileRule::FuseConsumer) tiled_as_consumer.insert(stage.consumer);
  }
  for (size_t e = 0; e < plan.targets.elementwise_outputs.size(); ++e) {
    const te::Operation& op = plan.targets.elementwise_outputs[e];
    if (tiled_as_consumer.count(op) || plan.index.elementwise[e] == kNoKnob) continue;
    sketch::tile_elementwise(sch, op, value(plan.index.elementwise[e]), parallel_levels);
  }
  sketch::annotate_auto_unroll(sch, value(plan.index.auto_unroll)[0]);
}

}  // namespace

topi::SearchSpace sketch_search_space(const std::vector<te::Tensor>& outputs,
                                      const VectorUnit& vector_unit) {
  auto plan = std::make_shared<SketchPlan>();
  plan->targets = sketch::find_sketch_targets(outputs);
  plan->sketches = enumerate_sketches(plan->targets);

  KnobList list;
  KnobIndex& index = plan->index;
  std::vector<int64_t> sketch_ids;
  for (size_t s = 0; s < plan->sketches.size(); ++s) sketch_ids.push_back(static_cast<int64_t>(s));
  index.sketch = list.add(topi::choice_knob("sketch", sketch_ids), {0});
  for (const sketch::ReductionStage& r : plan->targets.reductions) {
    const te::ComputeOpNode* c = r.op.as_compute();
    std::vector<size_t>& spatial = index.spatial.emplace_back();
    for (size_t i = 0; i < c->axis.size(); ++i) {
      const int64_t extent = c->shape[i];
      spatial.push_back(
          list.add(topi::split_knob(r.op->name + "." + c->axis[i].name(), extent, 4, kMaxInnerTile),
                   default_spatial_tile(extent, i, c->axis.size(), vector_unit.lanes())));
    }
    std::vector<size_t>& reduce = index.reduce.emplace_back();
    for (const te::IterVar& k : c->reduce_axis) {
      const int64_t extent = reduce_extent(k);
      reduce.push_back(
          list.add(topi::split_knob(r.op->name + "." + k.name(), extent, 2), {extent, 1}));
    }
  }
  for (const te::Operation& op : plan->targets.elementwise_outputs) {
    const te::ComputeOpNode* c = op.as_compute();
    if (c->axis.empty()) {
      index.elementwise.push_back(kNoKnob);
      continue;
    }
    const int64_t extent = c->shape.back();
    const int64_t lanes = topi::largest_divisor(extent, vector_unit.lanes());
    index.elementwise.push_back(
        list.add(topi::split_knob(op->name + "." + c->axis.back().name(), extent, 2, kMaxInnerTile),
                 {extent / lanes, lanes}));
  }
  index.parallel = list.add(topi::choice_knob("parallel_levels", kParallelLevels), {1});
  index.auto_unroll =
      list.add(topi::choice_knob("auto_unroll_max_step", kAutoUnrollSteps), {kDefaultAutoUnroll});

  topi::SearchSpace space;
  space.name = "sketch";
  space.knobs = list.knobs();
  space.default_config = list.default_config();
  plan->knobs = space.knobs;
  space.apply = [plan](schedule::Schedule& sch, const topi::Config& config) {
    apply_sketch(*plan, sch, config);
  };
  return space;
}

}  // namespace lathe::tune
