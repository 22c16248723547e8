// What a tuning session reports while it runs: one event API for the command
// line and the studio (both reach it through core/driver/tuning.h). Events are
// delivered on the thread running the session.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace lathe::tune {

struct TaskStatus {
  int id = 0;  // the model's task id
  std::string name;
  std::string signature;
  int64_t flops = 0;
  int weight = 1;
  // The space searched ("conv2d_NCHWc.x86", "sketch"), and where the anchor
  // op's template had no point for this kernel, which template gave way to
  // the generic one and why (topi::SearchSpace::fallback): such a task is
  // tuned over the generic template's knobs, or over sketches.
  std::string space;
  std::string fallback;
  int trials = 0;
  int errors = 0;
  double default_ms = std::numeric_limits<double>::infinity();  // the untuned schedule
  // The best record's cost (TuningRecord::latency_ms): only a candidate that
  // stayed faster when measured again against the previous best gets here.
  double best_ms = std::numeric_limits<double>::infinity();
  double best_gflops = 0;
  // Candidates faster than the best at first that were not when measured again.
  int unconfirmed = 0;
  double current_gflops = 0;  // the last round's best
  bool finished = false;      // space exhausted or early-stopped
};

struct TuningProgress {
  double elapsed_s = 0;
  int total_trials = 0;
  int planned_trials = 0;    // --trials, 0 when only the time budget bounds the session
  double time_budget_s = 0;  // 0: none
  // sum(weight * best latency) over the tasks whose default schedule has been
  // measured, and the same with their default schedules; the session
  // measures every default first, so only a budget smaller than the number
  // of tasks leaves some out, and unmeasured_tasks says how many.
  double estimated_latency_ms = 0;
  double estimated_default_ms = 0;
  int unmeasured_tasks = 0;
  std::vector<TaskStatus> tasks;
};

struct TrialEvent {
  int task_index = 0;  // into TuningProgress::tasks
  int trial = 0;       // the task's trial number, from 1
  std::string knobs;   // SearchSpace::describe
  std::string schedule;
  double latency_ms = 0;  // the trial's first measurement (TuningRecord::trial_ms); inf: error
  double gflops = 0;
  std::string error_kind = "none";
  std::string error_message;
  bool new_best = false;     // confirmed: it stayed faster when measured again against the best
  bool unconfirmed = false;  // faster than the best at first, not when measured again
};

class TuningListener {
 public:
  virtual ~TuningListener() = default;
  virtual void on_start(const TuningProgress&) {}
  virtual void on_trial(const TrialEvent&, const TuningProgress&) {}
  // After each round (one batch of one task).
  virtual void on_round(int /*task_index*/, const TuningProgress&) {}
  virtual void on_message(const std::string&) {}
  virtual void on_finish(const TuningProgress&) {}
};

}  // namespace lathe::tune
