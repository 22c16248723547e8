#include "driver/tuning.h"

#include <algorithm>
#include <charconv>

#include "support/error.h"
#include "tune/gpu_task.h"

namespace lathe::driver {

TuningPlan plan_tuning(const Graph& graph, const passes::PassOptions& passes) {
  passes::PassOptions options = passes;
  options.record_snapshots = false;
  TuningPlan plan;
  plan.optimized = passes::optimize_graph(graph, options);
  plan.tasks = tune::extract_tasks(plan.optimized.graph, plan.optimized.groups);
  tune::describe_task_spaces(plan.optimized.graph, plan.optimized.groups, plan.tasks,
                             plan.optimized.vector_unit);
  return plan;
}

std::vector<int> parse_task_selection(const std::string& text, size_t num_tasks) {
  std::vector<int> selected;
  if (text.empty()) {
    for (size_t i = 0; i < num_tasks; ++i) selected.push_back(static_cast<int>(i));
    return selected;
  }
  auto number = [&](std::string_view part, std::string_view whole) {
    int value = -1;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    LATHE_CHECK(ec == std::errc() && end == part.data() + part.size() && value >= 0 &&
                    static_cast<size_t>(value) < num_tasks,
                "--tasks: '", whole, "' is not a task id from 0 to ", num_tasks - 1);
    return value;
  };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = std::min(text.find(',', pos), text.size());
    std::string_view part(text.data() + pos, comma - pos);
    size_t dash = part.find('-');
    if (dash == std::string_view::npos) {
      selected.push_back(number(part, part));
    } else {
      int first = number(part.substr(0, dash), part), last = number(part.substr(dash + 1), part);
      LATHE_CHECK(first <= last, "--tasks: range '", part, "' runs backwards");
      for (int i = first; i <= last; ++i) selected.push_back(i);
    }
    pos = comma + 1;
  }
  std::sort(selected.begin(), selected.end());
  selected.erase(std::unique(selected.begin(), selected.end()), selected.end());
  return selected;
}

CacheDecision measurement_cache_state(const TuningPlan& plan, tune::CacheFlush requested) {
  return decide_cache_flush(model_footprint(plan.optimized.graph, plan.optimized.groups),
                            requested);
}

std::unique_ptr<tune::TuningSession> make_tuning_session(const TuningPlan& plan,
                                                         const std::vector<int>& selected,
                                                         TuningOptions options,
                                                         TuningListener* listener) {
  // A GPU's kernels are measured on it: refused before any task is built.
  if (options.target.is_gpu()) tune::require_cuda_device(options.target);
  options.measure.flush_cache =
      !options.target.is_gpu() && measurement_cache_state(plan, options.cache_flush).flush;
  std::vector<tune::SearchTask> tasks;
  for (int id : selected) {
    // Building a task runs the reference executor: a stop asked for meanwhile
    // ends the session before it starts.
    if (options.control && options.control->stop) break;
    const KernelTask& task = plan.tasks.at(static_cast<size_t>(id));
    tasks.push_back(options.target.is_gpu()
                        ? tune::make_search_task(plan.optimized.graph, plan.optimized.groups, task,
                                                 options.space, options.target)
                        : tune::make_search_task(plan.optimized.graph, plan.optimized.groups, task,
                                                 options.space, plan.optimized.vector_unit));
  }
  return std::make_unique<tune::TuningSession>(std::move(tasks), std::move(options), listener);
}

}  // namespace lathe::driver
