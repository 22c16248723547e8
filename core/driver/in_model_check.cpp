#include "driver/in_model_check.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "driver/compiled_module.h"
#include "driver/tuning_records.h"
#include "support/timer.h"

namespace lathe::driver {
namespace {

// The runtime's summary of a series of times: its median.
double median(std::vector<double> v) {
  return v.empty() ? 0 : runtime::TimeSummary::from_samples(std::move(v)).median;
}

// One build of the model, its kernel calls grouped by task workload.
struct Build {
  CompiledGraph compiled;
  std::unique_ptr<JitGraphModule> module;
  std::map<std::string, std::string> workload_of_func;  // func_name -> workload

  Build(const Graph& graph, const CompileOptions& options)
      : compiled(compile_graph(graph, options)),
        module(std::make_unique<JitGraphModule>(compiled, options.target)) {
    for (const KernelTask& t : compiled.tasks)
      workload_of_func[t.func_name] = tune::task_workload_id(t);
  }

  // Runs `runs` times; adds each task's mean time per run (ms) to `times`.
  void profile(int runs, std::map<std::string, std::vector<double>>& times, double& total) {
    std::map<std::string, double> sums;
    double all = 0;
    for (const runtime::KernelProfile& row : module->executor().profile(runs)) {
      auto it = workload_of_func.find(row.func_name);
      if (it == workload_of_func.end()) continue;
      sums[it->second] += row.time_us / 1e3;
      all += row.time_us / 1e3;
    }
    for (const auto& [workload, ms] : sums) times[workload].push_back(ms);
    total = all;
  }

  // Runs `runs` times; the summed kernel time of one run (ms).
  double total_ms(int runs) {
    std::map<std::string, std::vector<double>> ignored;
    double total = 0;
    profile(runs, ignored, total);
    return total;
  }
};

using ScheduleMap = std::map<std::string, tune::TuningRecord>;  // workload -> best

CompileOptions with_schedules(CompileOptions options, const ScheduleMap& schedules) {
  if (schedules.empty()) {
    options.schedule_for = {};
    return options;
  }
  auto shared = std::make_shared<ScheduleMap>(schedules);
  options.schedule_for = [shared](const KernelTask& task) -> std::optional<std::string> {
    auto it = shared->find(tune::task_workload_id(task));
    if (it == shared->end()) return std::nullopt;
    return it->second.schedule;
  };
  return options;
}

// The per-task choice as a build of its own, timed against the other two in
// fresh alternated rounds; sets the check's whole-model medians and choice.
void check_per_task_choice(const Graph& graph, const CompileOptions& options,
                           const ScheduleMap& kept, Build& defaults, Build& tuned,
                           InModelCheck& check) {
  Build per_task(graph, with_schedules(options, kept));
  std::vector<double> d, t, p;
  for (int round = 0; round < check.rounds; ++round) {
    d.push_back(defaults.total_ms(check.runs_per_round));
    t.push_back(tuned.total_ms(check.runs_per_round));
    p.push_back(per_task.total_ms(check.runs_per_round));
  }
  check.whole_default_ms = median(d);
  check.whole_tuned_ms = median(t);
  check.whole_per_task_ms = median(p);
  check.choice =
      choose_in_model_build(check.whole_default_ms, check.whole_tuned_ms, check.whole_per_task_ms);
}

}  // namespace

InModelChoice choose_in_model_build(double default_ms, double every_best_ms, double per_task_ms) {
  if (per_task_ms <= default_ms && per_task_ms <= every_best_ms) return InModelChoice::PerTask;
  return every_best_ms < default_ms ? InModelChoice::EveryBest : InModelChoice::Defaults;
}

InModelCheck check_records_in_model(const Graph& graph, CompileOptions options,
                                    const std::string& records_path, int rounds, double round_ms) {
  // The measured bests, before any earlier verdict: this check decides anew.
  tune::RecordFile file = tune::read_records(records_path);
  const ScheduleMap best = tune::best_records(file.records, options.target.to_string());

  Build defaults(graph, with_schedules(options, {}));
  Build tuned(graph, with_schedules(options, best));

  // Enough runs that a round lasts round_ms, from one timed run of each build.
  Timer timer;
  defaults.module->executor().run();
  tuned.module->executor().run();
  const double run_ms = std::max(timer.milliseconds() / 2, 1e-3);
  InModelCheck check;
  check.rounds = std::max(rounds, 1);
  check.runs_per_round = std::clamp(static_cast<int>(round_ms / run_ms), 3, 1000);

  std::map<std::string, std::vector<double>> default_times, tuned_times;
  std::vector<double> default_totals, tuned_totals;
  for (int round = 0; round < check.rounds; ++round) {
    double total = 0;
    defaults.profile(check.runs_per_round, default_times, total);
    default_totals.push_back(total);
    tuned.profile(check.runs_per_round, tuned_times, total);
    tuned_totals.push_back(total);
  }
  check.default_ms = median(default_totals);
  check.tuned_ms = median(tuned_totals);

  ScheduleMap kept;
  std::vector<std::string> workloads;  // of check.tasks, in order
  for (const KernelTask& task : tuned.compiled.tasks) {
    const std::string workload = tune::task_workload_id(task);
    auto b = best.find(workload);
    if (b == best.end() || !default_times.count(workload) || !tuned_times.count(workload)) continue;
    InModelTask row;
    row.task_id = task.id;
    row.func_name = task.func_name;
    row.kernels = task.weight();
    row.default_ms = median(default_times[workload]);
    row.tuned_ms = median(tuned_times[workload]);
    row.faster = row.kept = row.tuned_ms < row.default_ms;
    if (row.faster) kept.insert(*b);
    check.tasks.push_back(row);
    workloads.push_back(workload);
  }
  if (!kept.empty() && kept.size() < check.tasks.size()) {
    check_per_task_choice(graph, options, kept, defaults, tuned, check);
    for (InModelTask& row : check.tasks)
      if (check.choice != InModelChoice::PerTask)
        row.kept = check.choice == InModelChoice::EveryBest;
  }

  tune::RecordWriter writer(records_path);
  const std::string started = tune::utc_timestamp();
  for (size_t i = 0; i < check.tasks.size(); ++i) {
    const InModelTask& row = check.tasks[i];
    const std::string& workload = workloads[i];
    tune::TuningRecord verdict = best.at(workload);
    verdict.tuner = tune::kInModelTuner;
    verdict.costs_ms.clear();
    verdict.confirmation = row.kept ? tune::Confirmation::Won : tune::Confirmation::Lost;
    verdict.confirm_costs_ms = tuned_times[workload];
    verdict.rival_costs_ms = default_times[workload];
    verdict.build_ms = 0;
    verdict.started = started;
    verdict.finished = tune::utc_timestamp();
    writer.write(verdict);
  }
  return check;
}

std::string format_in_model_check(const InModelCheck& check) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-4s %-44s %7s %12s %12s %8s  %s\n", "ID", "task", "calls",
                "default ms", "best ms", "speedup", "in the model");
  out += line;
  int kept = 0, faster = 0;
  for (const InModelTask& t : check.tasks) {
    kept += t.kept;
    faster += t.faster;
    const char* verdict = t.kept == t.faster
                              ? (t.kept ? "best kept" : "default kept: the best was slower here")
                          : t.kept ? "best kept: the model ran faster with every best"
                                   : "default kept: the model ran faster with the defaults";
    std::snprintf(line, sizeof line, "%-4d %-44s %7d %12.4f %12.4f %7.2fx  %s\n", t.task_id,
                  t.func_name.substr(0, 44).c_str(), t.kernels, t.default_ms, t.tuned_ms,
                  t.tuned_ms > 0 ? t.default_ms / t.tuned_ms : 0.0, verdict);
    out += line;
  }
  std::snprintf(line, sizeof line,
                "in the model (medians of %d alternated rounds of %d runs): kernels %.4f ms with "
                "the defaults, %.4f ms with every best; %d of %zu bests kept\n",
                check.rounds, check.runs_per_round, check.default_ms, check.tuned_ms, kept,
                check.tasks.size());
  out += line;
  if (check.whole_per_task_ms > 0) {
    const char* decision = check.choice == InModelChoice::PerTask     ? "the per-task choice"
                           : check.choice == InModelChoice::EveryBest ? "every best"
                                                                      : "the defaults";
    std::snprintf(line, sizeof line,
                  "the per-task choice (%d of %zu bests) timed as a whole, again: %.4f ms, "
                  "against %.4f ms with the defaults and %.4f ms with every best; %s kept\n",
                  faster, check.tasks.size(), check.whole_per_task_ms, check.whole_default_ms,
                  check.whole_tuned_ms, decision);
    out += line;
  }
  return out;
}

}  // namespace lathe::driver
