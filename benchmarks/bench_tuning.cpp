// Tuning benchmark: tunes a model for a time budget, then measures what the
// records bought, in one quiet phase: the machine's peak FP32 FMA throughput,
// the untuned and tuned builds end to end (medians of >= 50 runs each,
// interleaved so both see the same machine), and every task's default and
// best kernel again (the best: the record `lathe compile --tuning-records`
// applies, after the in-model check below), measured as the tuner measures
// them, reported at the median of the repeats, each kernel's fraction of peak
// against the peak measured just before its round. Prints the speed-up,
// the fractions of peak, and the curve of estimated end-to-end latency against
// elapsed tuning time, rebuilt from the records' timestamps.
//   bench_tuning [--model PATH] [--time-budget SECONDS] [--runs N] [--records FILE]
//                [--tuner xgb|ga|random|grid] [--autoscheduler] [--no-in-model-check]
// --time-budget 0 skips tuning and measures an existing records file. Before
// measuring, each task's best is timed inside the model against its default
// (driver/in_model_check) and the verdicts appended to the records, unless
// --no-in-model-check.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

#include "driver/compiled_module.h"
#include "driver/in_model_check.h"
#include "driver/model_loader.h"
#include "driver/tensor_files.h"
#include "driver/tuning.h"
#include "driver/tuning_records.h"
#include "ir/normalized_error.h"
#include "support/error.h"
#include "support/machine_peak.h"
#include "support/timer.h"
#include "tune/kernel_fixture.h"

using namespace lathe;
namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class RoundPrinter : public driver::TuningListener {
 public:
  void on_round(int task_index, const driver::TuningProgress& p) override {
    const driver::TaskStatus& s = p.tasks[static_cast<size_t>(task_index)];
    std::printf(
        "[Task %2d/%2zu] Current/Best: %7.1f/%7.1f GFLOPS | Progress: (%d) | %.1f s | "
        "estimated %.3f ms\n",
        task_index + 1, p.tasks.size(), s.current_gflops, s.best_gflops, p.total_trials,
        p.elapsed_s, p.estimated_latency_ms);
    std::fflush(stdout);
  }
};

std::vector<double> time_runs(runtime::GraphExecutor& exec, int runs) {
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    Timer timer;
    exec.run();
    times.push_back(timer.milliseconds());
  }
  return times;
}

// Seconds since the epoch of "2026-11-22T08:15:02.123Z".
double epoch_seconds(const std::string& stamp) {
  std::tm tm{};
  double fraction = 0;
  if (!strptime(stamp.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return 0;
  if (size_t dot = stamp.find('.'); dot != std::string::npos)
    fraction = std::atof(stamp.substr(dot).c_str());
  return static_cast<double>(timegm(&tm)) + fraction;
}

// The estimated end-to-end latency, sum(weight * best so far), after each
// record of the file in order of finishing, from the moment every task has
// been measured once.
std::vector<std::pair<double, double>> latency_curve(const std::vector<tune::TuningRecord>& records,
                                                     const std::vector<driver::KernelTask>& tasks) {
  std::map<std::string, int> weight;
  for (const driver::KernelTask& t : tasks) weight[tune::task_workload_id(t)] = t.weight();
  std::vector<const tune::TuningRecord*> order;
  for (const tune::TuningRecord& r : records)
    if (weight.count(r.workload)) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return epoch_seconds(a->finished) < epoch_seconds(b->finished);
  });
  std::vector<std::pair<double, double>> curve;
  if (order.empty()) return curve;
  const double start = epoch_seconds(order.front()->started);
  std::map<std::string, double> best;
  for (const tune::TuningRecord* r : order) {
    if (!std::isfinite(r->latency_ms())) continue;  // failed, or lost its confirmation
    auto [it, fresh] = best.emplace(r->workload, r->latency_ms());
    if (!fresh && r->latency_ms() >= it->second) continue;
    it->second = std::min(it->second, r->latency_ms());
    if (best.size() < weight.size()) continue;
    double estimate = 0;
    for (auto& [w, ms] : best) estimate += weight[w] * ms;
    curve.emplace_back(epoch_seconds(r->finished) - start, estimate);
  }
  return curve;
}

struct KernelRow {
  int id = 0;
  std::string name;
  int weight = 1;
  int64_t flops = 0;
  int trials = 0;
  double default_ms = 0, best_ms = 0;
  // The best's share of the peak measured just before its round, the median
  // over the rounds: the machine's speed drifts by 10-20 % over seconds
  // (other guests, turbo), so a kernel is set against the peak of its moment.
  double best_peak_fraction = 0;
};

// Alternating measurements of a task's default and best in each: a burst of
// a neighbour's load hits both alike, and the median of the rounds ignores it.
constexpr int kRemeasureRounds = 5;

// The default and the best recorded config of every task, measured again
// here with the tuner's measurement options: each measurement's fastest
// repeat, as the records rank them, and the median of that over the rounds.
// Each round begins with a peak measurement (best of three) on `threads` threads.
std::vector<KernelRow> remeasure_kernels(const driver::TuningPlan& plan,
                                         const driver::TuningRecordSet& records,
                                         const std::vector<tune::TuningRecord>& all,
                                         const driver::TuningOptions& options, int threads) {
  std::vector<KernelRow> rows;
  tune::MeasureWorker worker;
  for (const driver::KernelTask& task : plan.tasks) {
    tune::SearchTask t = tune::make_search_task(plan.optimized.graph, plan.optimized.groups, task,
                                                options.space, plan.optimized.vector_unit);
    KernelRow row;
    row.id = task.id;
    row.name = task.func_name;
    row.weight = task.weight();
    row.flops = task.flops;
    const std::string workload = tune::task_workload_id(task);
    for (const tune::TuningRecord& r : all) row.trials += r.workload == workload;
    worker.set_buffers(tune::measure_buffers(t.data), static_cast<int>(t.data.num_inputs));
    // The untuned schedule is the template's default, also when the records
    // come from a sketch search; the best is rebuilt from its schedule text,
    // whatever space it came from.
    const tune::Candidate baseline = tune::build_baseline(t, options.target);
    std::optional<tune::Candidate> best;
    if (auto it = records.best.find(workload); it != records.best.end())
      best = tune::build_schedule_text(t, it->second.schedule, options.target);
    // Per candidate, each measurement's fastest repeat and its share of the
    // round's peak; one that fails to build or run leaves no value, and a
    // candidate with none at all a NaN median.
    struct Series {
      std::vector<double> ms, fractions;
    } defaults, bests;
    for (int round = 0; round < kRemeasureRounds; ++round) {
      const double round_peak = measure_peak_flops(threads).gflops_all_cores;
      auto add = [&](const tune::Candidate& c, Series& series) {
        if (!c.ok()) return;
        tune::MeasureResult m = worker.measure({c.object, task.func_name, false}, options.measure);
        if (m.error != tune::ErrorKind::None || m.costs_ms.empty()) return;
        const double ms = *std::min_element(m.costs_ms.begin(), m.costs_ms.end());
        series.ms.push_back(ms);
        series.fractions.push_back(static_cast<double>(task.flops) / (ms * 1e6) / round_peak);
      };
      add(baseline, defaults);
      if (best) add(*best, bests);
    }
    // A best that no longer builds or runs counts as the default, not as NaN in the sums.
    if (best && bests.ms.empty())
      std::fprintf(stderr, "task %d: the best record did not build or run; using the default\n",
                   task.id);
    const Series& kept = best && !bests.ms.empty() ? bests : defaults;
    row.default_ms = median(defaults.ms);
    row.best_ms = median(kept.ms);
    row.best_peak_fraction = median(kept.fractions);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model = std::string(LATHE_MODELS_DIR) + "/resnet18.onnx";
  std::string records = "bench_tuning_records.json", tuner = "xgb";
  double budget_s = 1200;
  int runs = 50;
  bool autoscheduler = false, in_model_check = true;
  bool wrong = false;  // a build's output off its reference
  for (int i = 1; i < argc; ++i) {
    auto value = [&] { return i + 1 < argc ? argv[++i] : ""; };
    if (!std::strcmp(argv[i], "--model"))
      model = value();
    else if (!std::strcmp(argv[i], "--time-budget"))
      budget_s = std::atof(value());
    else if (!std::strcmp(argv[i], "--runs"))
      runs = std::max(50, std::atoi(value()));
    else if (!std::strcmp(argv[i], "--records"))
      records = value();
    else if (!std::strcmp(argv[i], "--tuner"))
      tuner = value();
    else if (!std::strcmp(argv[i], "--autoscheduler"))
      autoscheduler = true;
    else if (!std::strcmp(argv[i], "--no-in-model-check"))
      in_model_check = false;
    else {
      std::fprintf(stderr,
                   "usage: bench_tuning [--model PATH] [--time-budget SECONDS (0: measure only)] "
                   "[--runs N>=50] [--records FILE] [--tuner KIND] [--autoscheduler] "
                   "[--no-in-model-check]\n");
      return 2;
    }
  }
  try {
    const codegen::Target target = codegen::Target::host();
    Graph graph = driver::load_model(model);
    passes::PassOptions passes;
    passes.vector_unit = target.vector_unit();
    driver::TuningPlan plan = driver::plan_tuning(graph, passes);
    driver::TuningOptions options;
    options.target = target;
    options.tuner = tuner;
    options.space = autoscheduler ? tune::SpaceKind::Sketch : tune::SpaceKind::Template;
    options.time_budget_s = budget_s;
    options.records_path = records;
    // The session decides this too; the kernels are measured again below in
    // the same state.
    const driver::CacheDecision cache = driver::measurement_cache_state(plan, options.cache_flush);
    options.measure.flush_cache = cache.flush;
    std::printf("%s\n", cache.reason.c_str());
    if (budget_s > 0) {
      RoundPrinter printer;
      std::vector<int> all = driver::parse_task_selection("", plan.tasks.size());
      auto session = driver::make_tuning_session(plan, all, options, &printer);
      std::printf("tuning %s: %zu tasks, budget %.0f s, tuner %s%s\n", model.c_str(),
                  plan.tasks.size(), budget_s, tuner.c_str(), autoscheduler ? " (sketches)" : "");
      session->run();
    }
    if (in_model_check) {
      // The bests against the defaults inside the model; the tuned build
      // below applies a best only where it won there.
      driver::CompileOptions compile;
      compile.target = target;
      compile.passes = passes;
      std::printf("\n%s", driver::format_in_model_check(
                              driver::check_records_in_model(graph, compile, records))
                              .c_str());
    }
    const std::vector<tune::TuningRecord> all_records = tune::read_records(records).records;
    const driver::TuningRecordSet record_set = driver::load_tuning_records(records, target);

    // Both builds, checked against the model's reference outputs.
    driver::CompiledGraph untuned = driver::compile_graph(graph);
    driver::CompileOptions tuned_options;
    tuned_options.schedule_for = [&](const driver::KernelTask& t) {
      return record_set.schedule_for(t);
    };
    driver::CompiledGraph tuned = driver::compile_graph(graph, tuned_options);
    driver::JitGraphModule untuned_module(untuned, target), tuned_module(tuned, target);
    int64_t flops = 0;
    for (const driver::KernelTask& t : untuned.tasks) flops += t.flops * t.weight();
    // A model without them (any --model) is measured unchecked, and says so;
    // a build off by more than 1e-4 fails the run once everything is printed.
    fs::path npz = fs::path(model).replace_extension(".io.npz");
    std::map<std::string, Tensor> io;
    if (fs::exists(npz))
      for (auto& [name, tensor] : driver::read_npz_tensors(npz.string())) io[name] = tensor;
    if (!io.count("output")) {
      std::printf("builds not checked: %s has no reference array 'output'\n", npz.c_str());
    } else {
      for (driver::JitGraphModule* m : {&untuned_module, &tuned_module}) {
        runtime::GraphExecutor& exec = m->executor();
        for (int i = 0; i < exec.num_inputs(); ++i) {
          auto it = io.find(exec.input_name(i));
          LATHE_CHECK(it != io.end(), npz.string(), " has no array for the input ",
                      exec.input_name(i));
          exec.set_input(it->first, it->second.raw(), it->second.nbytes());
        }
        exec.run();
        const double error = normalized_error(driver::from_ndarray(exec.output(0)), io["output"]);
        const bool off = !(error <= 1e-4);
        std::printf("%s build: normalized error against the reference output %.1e%s\n",
                    m == &untuned_module ? "untuned" : "tuned", error,
                    off ? " (above 1e-4: WRONG)" : "");
        wrong |= off;
      }
    }

    // The quiet phase: peak, both builds interleaved, then every kernel.
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    PeakFlops peak = measure_peak_flops(threads);
    std::vector<double> untuned_times, tuned_times;
    runtime::GraphExecutor& u = untuned_module.executor();
    runtime::GraphExecutor& t = tuned_module.executor();
    u.run();
    t.run();
    // Blocks of 10, alternating, so a burst of load hits both builds alike.
    for (int done = 0; done < runs; done += 10) {
      for (double ms : time_runs(u, 10)) untuned_times.push_back(ms);
      for (double ms : time_runs(t, 10)) tuned_times.push_back(ms);
    }
    std::vector<KernelRow> kernels =
        remeasure_kernels(plan, record_set, all_records, options, threads);
    PeakFlops peak_after = measure_peak_flops(threads);

    const double untuned_ms = median(untuned_times), tuned_ms = median(tuned_times);
    // The higher of the two peaks: a neighbour's load during one measurement
    // lowers that peak, and dividing by it would flatter every fraction.
    const double peak_gflops = std::max(peak.gflops_all_cores, peak_after.gflops_all_cores);
    auto gflops = [&](int64_t f, double ms) { return static_cast<double>(f) / (ms * 1e6); };
    std::printf(
        "\npeak %.1f GFLOPS on %d threads before the runs, %.1f after (%.1f per core); "
        "fractions are of the higher\n",
        peak.gflops_all_cores, threads, peak_after.gflops_all_cores, peak.gflops_per_core);
    std::printf("%-8s %10s %9s %8s\n", "build", "median ms", "GFLOPS", "% peak");
    for (auto [name, ms] : {std::pair{"untuned", untuned_ms}, std::pair{"tuned", tuned_ms}})
      std::printf("%-8s %10.3f %9.1f %7.1f%%\n", name, ms, gflops(flops, ms),
                  100 * gflops(flops, ms) / peak_gflops);
    std::printf("speed-up %.2fx over %d runs each; %zu records, %zu of %zu tasks tuned\n",
                untuned_ms / tuned_ms, static_cast<int>(tuned_times.size()), all_records.size(),
                record_set.best.size(), plan.tasks.size());

    std::printf(
        "\nevery kernel measured again as the tuner measures it (%s), default "
        "and best alternating, the median of %d rounds; %% peak: of the peak measured just "
        "before each round\n",
        cache.flush ? "weights flushed" : "warm", kRemeasureRounds);
    std::printf("%-4s %-30s %6s %10s %10s %8s %9s %8s %7s\n", "ID", "task", "weight", "default ms",
                "best ms", "speedup", "GFLOPS", "% peak", "trials");
    double sum_default = 0, sum_best = 0;
    for (const KernelRow& k : kernels) {
      sum_default += k.weight * k.default_ms;
      sum_best += k.weight * k.best_ms;
      std::printf("%-4d %-30s %6d %10.4f %10.4f %7.2fx %9.1f %7.1f%% %7d\n", k.id,
                  k.name.substr(0, 30).c_str(), k.weight, k.default_ms, k.best_ms,
                  k.default_ms / k.best_ms, gflops(k.flops, k.best_ms), 100 * k.best_peak_fraction,
                  k.trials);
    }
    std::printf("sum of weighted kernel latencies: %.3f ms default, %.3f ms tuned (%.2fx)\n",
                sum_default, sum_best, sum_default / sum_best);

    std::printf(
        "\nestimated end-to-end kernel latency against tuning time (from the records)\n"
        "%10s %14s\n",
        "elapsed s", "estimated ms");
    std::vector<std::pair<double, double>> curve = latency_curve(all_records, plan.tasks);
    const size_t step = std::max<size_t>(1, curve.size() / 25);
    for (size_t i = 0; i < curve.size(); i += step)
      std::printf("%10.1f %14.3f\n", curve[i].first, curve[i].second);
    if (!curve.empty()) std::printf("%10.1f %14.3f\n", curve.back().first, curve.back().second);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_tuning: %s\n", e.what());
    return 1;
  }
  if (wrong) {
    std::fprintf(stderr, "bench_tuning: a build's output is off by more than 1e-4 (see above)\n");
    return 1;
  }
  return 0;
}
