// Replaying a trace: re-applies recorded ScheduleSteps, which name stages and
// axes by name, to a fresh schedule. Shared by the printer (which replays to
// learn what each name refers to at each step) and by schedule_from_json.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "schedule/schedule.h"

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
  Stage stage;                 // the stage the primitive is called on
  std::vector<IterVar> axes;   // step.axes, resolved in `stage` (compute_at: in `other`)
  Stage other;                 // compute_at's parent stage, prefetch's tensor
  std::vector<Stage> readers;  // cache_read's readers
};

// What a step made: new axes in return order, or the new cache tensor.
struct AppliedStep {
  std::vector<IterVar> axes;
  Tensor tensor;
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
  // Applies a resolved step; the primitives throw ScheduleError.
  AppliedStep apply(const ScheduleStep& step, const ResolvedStep& resolved);

 private:
  Stage stage_named(const std::string& name, int field);
  std::unique_ptr<Schedule> schedule_;
};

// The name to pass Schedule::rfactor for a result bound to `result`. A given
// name also names the factored op, the default does not ("C.rf", bound as
// "C_rf"), so the default result name maps back to "" and an unnamed rfactor
// replays and reprints to the same op name.
std::string rfactor_name(const std::string& tensor, const std::string& result);

// The newest leaf axis of `stage` named `name` (names a text rebinds refer to
// the latest binding, as in Python); undefined when there is none.
IterVar find_leaf(const Stage& stage, const std::string& name);

}  // namespace lathe::schedule::detail
