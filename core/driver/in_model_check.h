// Checking tuning records inside the model. The tuner ranks a task's
// candidates by timing its kernel alone, in the cache state the model gives
// it (driver/cache_residency); inside the model a kernel also meets its
// neighbours' data, where the previous kernel's threads left it and the
// caches another schedule's traffic left. A best that wins alone can lose
// there (SqueezeNet's records once built a model 0.94x as fast as the
// defaults). This check times every task's kernels in two builds of the
// whole model, one with the records' best schedules and one with the
// defaults, alternately, and appends a verdict per task to the records:
// load_tuning_records then applies a best only where it won in the model.
//
// Per-task medians misjudge near-ties: a recurrent layer's hundreds of
// microsecond kernels each differ by less than the noise, and a model whose
// every best together ran 1.41 -> 1.15 ms kept 12 of 219 of them. So the
// per-task choice is itself checked as a whole: where it keeps some bests and
// not others, a third build with only those is timed against the other two,
// and the build that ran fastest decides every task's verdict.
#pragma once

#include <string>
#include <vector>

#include "driver/graph_compiler.h"

namespace lathe::driver {

struct InModelTask {
  int task_id = 0;
  std::string func_name;
  int kernels = 0;  // the model's kernel calls of this task
  // Medians over the rounds of the task's kernels' summed time in each build.
  double default_ms = 0, tuned_ms = 0;
  bool faster = false;  // the best's median in the model was below the default's
  bool kept = false;    // the verdict: the best is applied (see InModelCheck::choice)
};

// Which build the verdicts follow.
enum class InModelChoice {
  PerTask,    // each task's best where it ran faster (every verdict agreed, or that build won)
  EveryBest,  // every best: that build ran faster than the per-task choice
  Defaults,   // no best: the defaults ran faster than the per-task choice
};

struct InModelCheck {
  std::vector<InModelTask> tasks;  // tasks with a best record, in task order
  int rounds = 0, runs_per_round = 0;
  // Medians over the rounds of every kernel's summed time in each build.
  double default_ms = 0, tuned_ms = 0;
  // Where the per-task verdicts keep some bests and not others: the three
  // builds timed again, alternately, the defaults, every best and the
  // per-task choice (0 where that round did not run).
  double whole_default_ms = 0, whole_tuned_ms = 0, whole_per_task_ms = 0;
  InModelChoice choice = InModelChoice::PerTask;
};

// The build with the lowest median; the per-task choice on a tie. A pure
// function of the three whole-model medians, apart for its tests.
InModelChoice choose_in_model_build(double default_ms, double every_best_ms, double per_task_ms);

// Times the two builds of `graph` (the records' bests through
// options.schedule_for's replacement, and the defaults) for `rounds`
// alternations of at least `round_ms` each, and appends one kInModelTuner
// record per task with a best to `records_path`. Tasks keep the best only
// if its median time in the model is below the default's, unless the whole
// model ran faster with every best or with none (above). Throws
// lathe::Error when the records cannot be read or written.
InModelCheck check_records_in_model(const Graph& graph, CompileOptions options,
                                    const std::string& records_path, int rounds = 7,
                                    double round_ms = 200);

// A table of the verdicts for the console: task, kernels, default and best
// in the model, the verdict; and the two builds' sums.
std::string format_in_model_check(const InModelCheck& check);

}  // namespace lathe::driver
