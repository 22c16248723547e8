#include "driver/in_model_check.h"

#include <algorithm>
#include <cstdio>
#include <map>

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
};

}  // namespace

InModelCheck check_records_in_model(const Graph& graph, CompileOptions options,
                                    const std::string& records_path, int rounds, double round_ms) {
  // The measured bests, before any earlier verdict: this check decides anew.
  tune::RecordFile file = tune::read_records(records_path);
  const std::map<std::string, tune::TuningRecord> best =
      tune::best_records(file.records, options.target.to_string());

  options.schedule_for = {};
  Build defaults(graph, options);
  options.schedule_for = [&best](const KernelTask& task) -> std::optional<std::string> {
    auto it = best.find(tune::task_workload_id(task));
    if (it == best.end()) return std::nullopt;
    return it->second.schedule;
  };
  Build tuned(graph, options);

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

  tune::RecordWriter writer(records_path);
  const std::string started = tune::utc_timestamp();
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
    row.kept = row.tuned_ms < row.default_ms;
    check.tasks.push_back(row);

    tune::TuningRecord verdict = b->second;
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
  int kept = 0;
  for (const InModelTask& t : check.tasks) {
    kept += t.kept;
    std::snprintf(line, sizeof line, "%-4d %-44s %7d %12.4f %12.4f %7.2fx  %s\n", t.task_id,
                  t.func_name.substr(0, 44).c_str(), t.kernels, t.default_ms, t.tuned_ms,
                  t.tuned_ms > 0 ? t.default_ms / t.tuned_ms : 0.0,
                  t.kept ? "best kept" : "default kept: the best was slower here");
    out += line;
  }
  std::snprintf(line, sizeof line,
                "in the model (medians of %d alternated rounds of %d runs): kernels %.4f ms with "
                "the defaults, %.4f ms with every best; %d of %zu bests kept\n",
                check.rounds, check.runs_per_round, check.default_ms, check.tuned_ms, kept,
                check.tasks.size());
  out += line;
  return out;
}

}  // namespace lathe::driver
