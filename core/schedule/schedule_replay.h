// Replaying a trace: re-applies recorded ScheduleSteps, which name stages and
// axes by name, to a fresh schedule, resolving each name by its parameter's
// kind in the primitive table. Shared by the printer (which replays to learn
// what each name refers to at each step) and by schedule_from_json.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "schedule/primitives.h"

namespace lathe::schedule::detail {

// A step that does not replay; `field` is the ScheduleStep field at fault
// (1 primitive, 2 stage, 3 axes, 4 ints, 5 strings, 6 results; 0 the step).
class ReplayError : public Error {
 public:
  ReplayError(int field, const std::string& message) : Error(message), field_(field) {}
  int field() const { return field_; }

 private:
  int field_;
};

// What a step's names refer to in the schedule before the step.
struct ResolvedStep {
  const Primitive* primitive = nullptr;
  Stage stage;                 // the stage the primitive is called on (or its Subject's)
  std::vector<Argument> args;  // one per parameter of the primitive
};

// The output names of a create_schedule step ("C,D").
std::vector<std::string> create_schedule_outputs(const ScheduleStep& step);

// Checks the step's field counts for its primitive; throws ReplayError.
void check_step_shape(const ScheduleStep& step);

class TraceReplayer {
 public:
  // Creates the schedule of a create_schedule step, whose outputs are looked
  // up in `tensors` by name.
  TraceReplayer(const ScheduleStep& create, const std::map<std::string, Tensor>& tensors);

  Schedule& schedule() { return *schedule_; }
  std::unique_ptr<Schedule> release() { return std::move(schedule_); }

  // Resolves names against the current schedule; throws ReplayError.
  ResolvedStep resolve(const ScheduleStep& step);
  // Applies a resolved step, with the step's result names; the primitives
  // throw ScheduleError.
  AppliedStep apply(const ScheduleStep& step, const ResolvedStep& resolved);

 private:
  Stage stage_named(const std::string& name, int field);
  std::unique_ptr<Schedule> schedule_;
};

// The newest leaf axis of `stage` named `name` (names a text rebinds refer to
// the latest binding, as in Python); undefined when there is none.
IterVar find_leaf(const Stage& stage, const std::string& name);

}  // namespace lathe::schedule::detail
