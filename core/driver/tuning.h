// Tuning a model: the public entry the command line (`lathe tune`) and the
// studio's tuning view share. The tasks come from the same graph passes
// `compile_graph` runs, so the records a session writes apply when the model
// is compiled with the same pass options. Progress arrives through
// TuningListener (driver/tuning_events.h), the one event API of both.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "driver/cache_residency.h"
#include "driver/graph_compiler.h"
#include "driver/tuning_events.h"
#include "tune/tuning_session.h"

namespace lathe::driver {

using tune::CacheFlush;
using tune::SpaceKind;
using tune::TuningControl;
using tune::TuningOptions;
using tune::TuningSession;

struct TuningPlan {
  passes::OptimizedGraph optimized;
  std::vector<KernelTask> tasks;
};

// The model's tasks, weighted by the groups that run each.
TuningPlan plan_tuning(const Graph& graph, const passes::PassOptions& passes = {});

// "0,3-5" -> {0, 3, 4, 5}; empty text selects every task. Throws lathe::Error
// naming the part that is not a task id below `num_tasks`.
std::vector<int> parse_task_selection(const std::string& text, size_t num_tasks);

// The cache state the plan's kernels are measured in, `requested` resolved
// against the model's footprint, with the line that says why.
CacheDecision measurement_cache_state(const TuningPlan& plan, tune::CacheFlush requested);

// A session over the selected tasks, their computations, search spaces and
// reference outputs built here; the plan must outlive the session. Records of
// these tasks in `options.prior_records` resume them. options.measure.flush_cache
// is set by measurement_cache_state.
std::unique_ptr<tune::TuningSession> make_tuning_session(const TuningPlan& plan,
                                                         const std::vector<int>& selected,
                                                         TuningOptions options,
                                                         TuningListener* listener = nullptr);

}  // namespace lathe::driver
