// Re-applies recorded schedule steps by name. Each name resolves by the kind
// of the parameter it fills (primitives.h), as the schedule text's would
// have: stages by tensor name, loops among the stage's current leaves
// (newest first), a data axis among the op's axes.
#include "schedule/schedule_replay.h"

#include <limits>

#include "support/error.h"

namespace lathe::schedule::detail {
namespace {

// How many names or numbers a step of `p` holds in each field: exact, or at
// least `count` when a parameter takes several.
struct FieldCount {
  size_t count = 0;
  bool or_more = false;
};

struct StepShape {
  FieldCount axes, ints, strings, results;
};

StepShape shape_of(const Primitive& p) {
  StepShape shape;
  for (const Param& param : p.params) {
    switch (param.kind) {
      case ParamKind::Axis:
      case ParamKind::DataAxis:
      case ParamKind::AttachAxis:
        ++shape.axes.count;
        break;
      case ParamKind::Axes:
        shape.axes.count += static_cast<size_t>(param.min_count);
        shape.axes.or_more = true;
        break;
      case ParamKind::Int:
      case ParamKind::Dim:
        ++shape.ints.count;
        break;
      case ParamKind::String:
      case ParamKind::ThreadTag:
      case ParamKind::Stage:
      case ParamKind::Tensor:
        ++shape.strings.count;
        break;
      case ParamKind::Tensors:
        shape.strings.count += static_cast<size_t>(param.min_count);
        shape.strings.or_more = true;
        break;
      case ParamKind::Subject:
        break;
    }
  }
  shape.results.count = p.results.size();
  return shape;
}

void check_count(size_t have, FieldCount want, int field, const char* what,
                 const std::string& prim) {
  if (want.or_more ? have >= want.count : have == want.count) return;
  std::string expected = want.or_more ? str(want.count, " or more") : std::to_string(want.count);
  throw ReplayError(field, str(prim, " takes ", expected, " ", what, ", got ", have));
}

// Hands out a step field's entries in order, as the parameters take them.
template <typename T>
class Cursor {
 public:
  explicit Cursor(const std::vector<T>& items) : items_(items) {}
  const T& next() { return items_[at_++]; }
  std::vector<T> rest() {
    std::vector<T> out(items_.begin() + static_cast<long>(at_), items_.end());
    at_ = items_.size();
    return out;
  }

 private:
  const std::vector<T>& items_;
  size_t at_ = 0;
};

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
  StepShape shape;
  if (step.primitive == "create_schedule") {
    shape.strings.count = 1;
  } else if (const Primitive* p = find_primitive(step.primitive)) {
    shape = shape_of(*p);
  } else {
    throw ReplayError(1, str("unknown schedule primitive '", step.primitive, "'"));
  }
  check_count(step.axes.size(), shape.axes, 3, "axes", step.primitive);
  check_count(step.ints.size(), shape.ints, 4, "integers", step.primitive);
  check_count(step.strings.size(), shape.strings, 5, "strings", step.primitive);
  check_count(step.results.size(), shape.results, 6, "results", step.primitive);
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
  r.primitive = find_primitive(step.primitive);
  r.stage = stage_named(step.stage, 2);
  Cursor<std::string> axes(step.axes), strings(step.strings);
  Cursor<int64_t> ints(step.ints);
  Stage attach_stage;  // the last Stage argument, whose loops AttachAxis names
  auto leaf = [&](const Stage& in, const std::string& name) {
    IterVar v = find_leaf(in, name);
    if (!v.defined()) throw ReplayError(3, str("stage '", in.name(), "' has no axis '", name, "'"));
    return v;
  };
  for (const Param& param : r.primitive->params) {
    Argument a;
    switch (param.kind) {
      case ParamKind::Axis:
        a.axis = leaf(r.stage, axes.next());
        break;
      case ParamKind::Axes:
        for (const std::string& name : axes.rest()) a.axes.push_back(leaf(r.stage, name));
        break;
      case ParamKind::DataAxis: {
        const std::string& name = axes.next();
        for (const IterVar& v : r.stage.axis())
          if (v.name() == name) a.axis = v;
        if (!a.axis.defined())
          throw ReplayError(3, str("stage '", r.stage.name(), "' has no data axis '", name, "'"));
        break;
      }
      case ParamKind::AttachAxis:
        a.axis = leaf(attach_stage, axes.next());
        break;
      case ParamKind::Int:
        a.integer = ints.next();
        break;
      case ParamKind::Dim:
        a.integer = ints.next();
        if (a.integer < 0 || a.integer > std::numeric_limits<int>::max())
          throw ReplayError(
              4, str(step.primitive, "'s ", param.name, " ", a.integer, " is out of range"));
        break;
      case ParamKind::String:
      case ParamKind::ThreadTag:
        a.text = strings.next();
        break;
      case ParamKind::Stage:
        a.stage = attach_stage = stage_named(strings.next(), 5);
        break;
      case ParamKind::Tensor:
        a.tensor = Tensor(stage_named(strings.next(), 5).op());
        break;
      case ParamKind::Tensors:
        for (const std::string& name : strings.rest())
          a.tensors.emplace_back(stage_named(name, 5).op());
        break;
      case ParamKind::Subject:
        a.tensor = Tensor(r.stage.op());
        break;
    }
    r.args.push_back(std::move(a));
  }
  return r;
}

AppliedStep TraceReplayer::apply(const ScheduleStep& step, const ResolvedStep& r) {
  return apply_primitive(*schedule_, *r.primitive, r.stage, r.args, step.results);
}

}  // namespace lathe::schedule::detail
