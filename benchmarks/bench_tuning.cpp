// Tuning benchmark: tunes a model for a time budget, then measures the
// untuned and the tuned builds in the same run — medians of >= 50 runs each,
// interleaved so both see the same machine — against the machine's peak FP32
// FMA throughput measured right before. Prints the speed-up, the fraction of
// peak end to end and per tuned conv task, and the curve of the estimated
// end-to-end latency against elapsed tuning time.
//   bench_tuning [--model PATH] [--time-budget SECONDS] [--runs N] [--records FILE]
//                [--prior-records FILE] [--tuner xgb|ga|random|grid] [--autoscheduler]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "driver/compiled_module.h"
#include "driver/model_loader.h"
#include "driver/tensor_files.h"
#include "driver/tuning.h"
#include "driver/tuning_records.h"
#include "peak_flops.h"
#include "support/timer.h"
#include "tune/task_data.h"

using namespace lathe;
namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Prints a line per round and keeps the latency curve.
class CurveListener : public driver::TuningListener {
 public:
  std::vector<std::pair<double, double>> curve;  // elapsed s, estimated ms

  void on_round(int task_index, const driver::TuningProgress& p) override {
    const driver::TaskStatus& s = p.tasks[static_cast<size_t>(task_index)];
    std::printf(
        "[Task %2d/%2zu] Current/Best: %7.1f/%7.1f GFLOPS | Progress: (%d) | %.1f s | "
        "estimated %.3f ms\n",
        task_index + 1, p.tasks.size(), s.current_gflops, s.best_gflops, p.total_trials,
        p.elapsed_s, p.estimated_latency_ms);
    std::fflush(stdout);
    curve.emplace_back(p.elapsed_s, p.estimated_latency_ms);
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

}  // namespace

int main(int argc, char** argv) {
  std::string model = std::string(LATHE_SHARED_MODELS_DIR) + "/resnet18.onnx";
  std::string records = "bench_tuning_records.json", prior, tuner = "xgb";
  double budget_s = 1200;
  int runs = 50;
  bool autoscheduler = false;
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
    else if (!std::strcmp(argv[i], "--prior-records"))
      prior = value();
    else if (!std::strcmp(argv[i], "--tuner"))
      tuner = value();
    else if (!std::strcmp(argv[i], "--autoscheduler"))
      autoscheduler = true;
    else {
      std::fprintf(stderr,
                   "usage: bench_tuning [--model PATH] [--time-budget SECONDS] [--runs N>=50] "
                   "[--records FILE] [--prior-records FILE] [--tuner KIND] [--autoscheduler]\n");
      return 2;
    }
  }
  try {
    const codegen::Target target = codegen::Target::host();
    Graph graph = driver::load_model(model);
    driver::TuningPlan plan = driver::plan_tuning(graph);
    driver::TuningOptions options;
    options.target = target;
    options.tuner = tuner;
    options.space = autoscheduler ? tune::SpaceKind::Sketch : tune::SpaceKind::Template;
    options.time_budget_s = budget_s;
    options.records_path = records;
    if (!prior.empty()) options.prior_records = tune::read_records(prior).records;
    std::vector<int> all = driver::parse_task_selection("", plan.tasks.size());
    CurveListener listener;
    auto session = driver::make_tuning_session(plan, all, options, &listener);
    std::printf("tuning %s: %zu tasks, budget %.0f s, tuner %s%s\n", model.c_str(),
                plan.tasks.size(), budget_s, tuner.c_str(), autoscheduler ? " (sketches)" : "");
    session->run();
    const driver::TuningProgress& progress = session->progress();

    // Both builds, checked against the model's reference outputs.
    driver::CompiledGraph untuned = driver::compile_graph(graph);
    driver::CompileOptions tuned_options;
    tuned_options.schedule_for = driver::best_schedules_from_records(records, target);
    driver::CompiledGraph tuned = driver::compile_graph(graph, tuned_options);
    driver::JitGraphModule untuned_module(untuned, target), tuned_module(tuned, target);
    int64_t flops = 0;
    for (const driver::KernelTask& t : untuned.tasks) flops += t.flops * t.weight();
    // The model's reference inputs and outputs (NAME.io.npz, see the models' README).
    fs::path npz = fs::path(model).replace_extension(".io.npz");
    if (fs::exists(npz)) {
      std::map<std::string, Tensor> io;
      for (auto& [name, tensor] : driver::read_npz_tensors(npz.string())) io[name] = tensor;
      for (driver::JitGraphModule* m : {&untuned_module, &tuned_module}) {
        runtime::GraphExecutor& exec = m->executor();
        for (int i = 0; i < exec.num_inputs(); ++i)
          if (auto it = io.find(exec.input_name(i)); it != io.end())
            exec.set_input(it->first, it->second.raw(), it->second.nbytes());
        exec.run();
        if (auto it = io.find("output"); it != io.end())
          std::printf("%s build: normalized error against the reference output %.1e\n",
                      m == &untuned_module ? "untuned" : "tuned",
                      tune::normalized_error(driver::from_ndarray(exec.output(0)), it->second));
      }
    }

    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    bench::PeakFlops peak = bench::measure_peak_flops(threads);
    std::vector<double> untuned_times, tuned_times;
    runtime::GraphExecutor& u = untuned_module.executor();
    runtime::GraphExecutor& t = tuned_module.executor();
    u.run();
    t.run();
    // Interleaved blocks of 10, so a burst of load hits both builds alike.
    for (int done = 0; done < runs; done += 10) {
      for (double ms : time_runs(u, 10)) untuned_times.push_back(ms);
      for (double ms : time_runs(t, 10)) tuned_times.push_back(ms);
    }
    const double untuned_ms = median(untuned_times), tuned_ms = median(tuned_times);
    auto fraction = [&](double ms) {
      return static_cast<double>(flops) / (ms * 1e6) / peak.gflops_all_cores;
    };

    std::printf("\npeak %.1f GFLOPS on %d threads (%.1f per core)\n", peak.gflops_all_cores,
                threads, peak.gflops_per_core);
    std::printf("%-8s %10s %9s %8s\n", "build", "median ms", "GFLOPS", "% peak");
    std::printf("%-8s %10.3f %9.1f %7.1f%%\n", "untuned", untuned_ms,
                static_cast<double>(flops) / (untuned_ms * 1e6), 100 * fraction(untuned_ms));
    std::printf("%-8s %10.3f %9.1f %7.1f%%\n", "tuned", tuned_ms,
                static_cast<double>(flops) / (tuned_ms * 1e6), 100 * fraction(tuned_ms));
    std::printf("speed-up %.2fx over %d runs each; %d trials in %.0f s\n", untuned_ms / tuned_ms,
                static_cast<int>(tuned_times.size()), progress.total_trials, progress.elapsed_s);

    std::printf("\n%-4s %-44s %7s %10s %10s %9s %8s %7s\n", "ID", "task", "weight", "default ms",
                "best ms", "GFLOPS", "% peak", "trials");
    for (const driver::TaskStatus& s : progress.tasks)
      std::printf("%-4d %-44s %7d %10.4f %10.4f %9.1f %7.1f%% %7d\n", s.id, s.name.c_str(),
                  s.weight, s.default_ms, s.best_ms, s.best_gflops,
                  100 * s.best_gflops / peak.gflops_all_cores, s.trials);

    std::printf("\nestimated end-to-end kernel latency against tuning time\n%10s %14s\n",
                "elapsed s", "estimated ms");
    // About twenty points of the curve.
    const size_t step = std::max<size_t>(1, listener.curve.size() / 20);
    for (size_t i = 0; i < listener.curve.size(); i += step)
      std::printf("%10.1f %14.3f\n", listener.curve[i].first, listener.curve[i].second);
    if (!listener.curve.empty())
      std::printf("%10.1f %14.3f\n", listener.curve.back().first, listener.curve.back().second);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_tuning: %s\n", e.what());
    return 1;
  }
  return 0;
}
