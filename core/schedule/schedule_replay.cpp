// Re-applies recorded schedule steps by name. Names resolve as the schedule
// text's would have: stages by tensor name, axes among the stage's current
// leaves (newest first), storage_align's axis among the op's data axes.
#include "schedule/schedule_replay.h"

#include <limits>

#include "support/error.h"

namespace lathe::schedule::detail {
namespace {

struct StepShape {
  const char* primitive;
  int axes, ints, strings, results;  // exact counts; -1: one or more, -2: two or more
};

const StepShape kShapes[] = {
    {"create_schedule", 0, 0, 1, 0},
    {"split", 1, 1, 0, 2},
    {"split_nparts", 1, 1, 0, 2},
    {"tile", 2, 2, 0, 4},
    {"fuse", 2, 0, 0, 1},
    {"reorder", -1, 0, 0, 0},
    {"parallel", 1, 0, 0, 0},
    {"vectorize", 1, 0, 0, 0},
    {"unroll", 1, 0, 0, 0},
    {"bind", 1, 0, 1, 0},
    {"pragma", 1, 1, 1, 0},
    {"prefetch", 1, 1, 1, 0},
    {"compute_at", 1, 0, 1, 0},
    {"compute_inline", 0, 0, 0, 0},
    {"compute_root", 0, 0, 0, 0},
    {"storage_align", 1, 2, 0, 0},
    {"cache_read", 0, 0, -2, 1},
    {"cache_write", 0, 0, 1, 1},
    {"rfactor", 1, 1, 0, 1},
};

void check_count(size_t have, int want, int field, const char* what, const std::string& prim) {
  bool ok = want >= 0 ? have == static_cast<size_t>(want) : have >= static_cast<size_t>(-want);
  if (ok) return;
  std::string expected = want >= 0 ? std::to_string(want) : str(-want, " or more");
  throw ReplayError(field, str(prim, " takes ", expected, " ", what, ", got ", have));
}

}  // namespace

std::vector<std::string> create_schedule_outputs(const ScheduleStep& step) {
  std::vector<std::string> names;
  if (step.strings.empty()) return names;
  const std::string& list = step.strings[0];
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    names.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

void check_step_shape(const ScheduleStep& step) {
  for (const StepShape& shape : kShapes) {
    if (step.primitive != shape.primitive) continue;
    check_count(step.axes.size(), shape.axes, 3, "axes", step.primitive);
    check_count(step.ints.size(), shape.ints, 4, "integers", step.primitive);
    check_count(step.strings.size(), shape.strings, 5, "strings", step.primitive);
    check_count(step.results.size(), shape.results, 6, "results", step.primitive);
    return;
  }
  throw ReplayError(1, str("unknown schedule primitive '", step.primitive, "'"));
}

std::string rfactor_name(const std::string& tensor, const std::string& result) {
  return result == tensor + "_rf" ? "" : result;
}

IterVar find_leaf(const Stage& stage, const std::string& name) {
  const StageNode& node = stage.node();
  for (auto it = node.all_iter_vars.rbegin(); it != node.all_iter_vars.rend(); ++it) {
    if (it->name() != name) continue;
    for (const IterVar& leaf : node.leaf_iter_vars)
      if (leaf.same_as(*it)) return leaf;
  }
  return IterVar();
}

TraceReplayer::TraceReplayer(const ScheduleStep& create,
                             const std::map<std::string, Tensor>& tensors) {
  if (create.primitive != "create_schedule")
    throw ReplayError(1, str("a trace starts with create_schedule, not '", create.primitive, "'"));
  check_step_shape(create);
  std::vector<Operation> outputs;
  for (const std::string& name : create_schedule_outputs(create)) {
    auto it = tensors.find(name);
    if (it == tensors.end() || !it->second.defined())
      throw ReplayError(5, str("unknown tensor '", name, "'"));
    outputs.push_back(it->second.op());
  }
  schedule_ = std::make_unique<Schedule>(outputs);
}

Stage TraceReplayer::stage_named(const std::string& name, int field) {
  Stage stage = schedule_->find_stage(name);
  if (!stage.ref()) throw ReplayError(field, str("the schedule has no stage '", name, "'"));
  return stage;
}

ResolvedStep TraceReplayer::resolve(const ScheduleStep& step) {
  check_step_shape(step);
  if (step.primitive == "create_schedule")
    throw ReplayError(1, "create_schedule may only be the first step");
  ResolvedStep r;
  r.stage = stage_named(step.stage, 2);
  Stage axis_stage = r.stage;
  if (step.primitive == "compute_at") {
    r.other = stage_named(step.strings[0], 5);
    axis_stage = r.other;
  }
  if (step.primitive == "prefetch") r.other = stage_named(step.strings[0], 5);
  if (step.primitive == "cache_read")
    for (size_t i = 1; i < step.strings.size(); ++i)
      r.readers.push_back(stage_named(step.strings[i], 5));
  for (const std::string& name : step.axes) {
    IterVar v;
    if (step.primitive == "storage_align") {
      for (const IterVar& a : axis_stage.axis())
        if (a.name() == name) {
          v = a;
          break;
        }
    } else {
      v = find_leaf(axis_stage, name);
    }
    if (!v.defined())
      throw ReplayError(3, str("stage '", axis_stage.name(), "' has no axis '", name, "'"));
    r.axes.push_back(v);
  }
  return r;
}

AppliedStep TraceReplayer::apply(const ScheduleStep& step, const ResolvedStep& r) {
  Stage stage = r.stage;
  const std::string& p = step.primitive;
  AppliedStep out;
  if (p == "split" || p == "split_nparts") {
    auto [outer, inner] =
        p == "split"
            ? stage.split(r.axes[0], step.ints[0], step.results[0], step.results[1])
            : stage.split_nparts(r.axes[0], step.ints[0], step.results[0], step.results[1]);
    out.axes = {outer, inner};
  } else if (p == "tile") {
    out.axes = stage.tile(r.axes[0], r.axes[1], step.ints[0], step.ints[1], step.results);
  } else if (p == "fuse") {
    out.axes = {stage.fuse(r.axes[0], r.axes[1], step.results[0])};
  } else if (p == "reorder") {
    stage.reorder(r.axes);
  } else if (p == "parallel") {
    stage.parallel(r.axes[0]);
  } else if (p == "vectorize") {
    stage.vectorize(r.axes[0]);
  } else if (p == "unroll") {
    stage.unroll(r.axes[0]);
  } else if (p == "bind") {
    stage.bind(r.axes[0], step.strings[0]);
  } else if (p == "pragma") {
    stage.pragma(r.axes[0], step.strings[0], te::make_int(step.ints[0]));
  } else if (p == "prefetch") {
    stage.prefetch(Tensor(r.other.op()), r.axes[0], step.ints[0]);
  } else if (p == "compute_at") {
    stage.compute_at(r.other, r.axes[0]);
  } else if (p == "compute_inline") {
    stage.compute_inline();
  } else if (p == "compute_root") {
    stage.compute_root();
  } else if (p == "storage_align") {
    stage.storage_align(r.axes[0], step.ints[0], step.ints[1]);
  } else if (p == "cache_read") {
    std::vector<Operation> readers;
    for (const Stage& s : r.readers) readers.push_back(s.op());
    out.tensor =
        schedule_->cache_read(Tensor(stage.op()), step.strings[0], readers, step.results[0]);
  } else if (p == "cache_write") {
    out.tensor = schedule_->cache_write(Tensor(stage.op()), step.strings[0], step.results[0]);
  } else if (p == "rfactor") {
    if (step.ints[0] < 0 || step.ints[0] > std::numeric_limits<int>::max())
      throw ReplayError(4, str("rfactor's factor_axis ", step.ints[0], " is out of range"));
    out.tensor = schedule_->rfactor(Tensor(stage.op()), r.axes[0], static_cast<int>(step.ints[0]),
                                    rfactor_name(stage.name(), step.results[0]));
  }
  return out;
}

}  // namespace lathe::schedule::detail
