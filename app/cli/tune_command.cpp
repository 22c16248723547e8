// lathe tune MODEL: searches schedules for the model's kernels on this machine
// and appends what it measured to a records file `lathe compile
// --tuning-records` applies.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "args.h"
#include "commands.h"
#include "driver/in_model_check.h"
#include "driver/model_loader.h"
#include "driver/tuning.h"
#include "driver/tuning_records.h"
#include "model_options.h"
#include "support/error.h"
#include "task_list.h"

namespace lathe::cli {
namespace {

// "20m", "90s", "1.5h", "300" (seconds).
double parse_duration(const std::string& text) {
  const auto [value, used] = leading_number(text);
  const std::string unit = text.substr(used);
  double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  LATHE_CHECK(used > 0 && scale > 0 && value > 0, "--time-budget: '", text,
              "' is not a duration like 20m, 90s or 1h");
  return value * scale;
}

std::string format_ms(double ms) {
  if (!std::isfinite(ms)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, ms < 1 ? "%.4f" : "%.3f", ms);
  return text;
}

void print_task_table(const driver::TuningProgress& p) {
  std::cout << "\n"
            << std::left << std::setw(4) << "ID" << std::setw(40) << "task" << std::right
            << std::setw(10) << "MFLOP" << std::setw(7) << "weight" << std::setw(12) << "default ms"
            << std::setw(12) << "best ms" << std::setw(9) << "GFLOPS" << std::setw(9) << "speedup"
            << std::setw(8) << "trials" << std::setw(8) << "errors"
            << "\n";
  for (const driver::TaskStatus& s : p.tasks) {
    double speedup = std::isfinite(s.best_ms) && std::isfinite(s.default_ms) && s.best_ms > 0
                         ? s.default_ms / s.best_ms
                         : 0;
    std::cout << std::left << std::setw(4) << s.id << std::setw(40) << s.name.substr(0, 39)
              << std::right << std::fixed << std::setprecision(2) << std::setw(10)
              << static_cast<double>(s.flops) / 1e6 << std::setw(7) << s.weight << std::setw(12)
              << format_ms(s.default_ms) << std::setw(12) << format_ms(s.best_ms) << std::setw(9)
              << std::setprecision(1) << s.best_gflops << std::setw(8) << std::setprecision(2)
              << speedup << "x" << std::setw(8) << s.trials << std::setw(8) << s.errors << "\n";
  }
  std::cout << "estimated end-to-end kernel latency: " << format_ms(p.estimated_latency_ms)
            << " ms tuned, " << format_ms(p.estimated_default_ms) << " ms with default schedules";
  if (p.estimated_latency_ms > 0 && p.estimated_default_ms > 0)
    std::cout << " (" << std::setprecision(2) << p.estimated_default_ms / p.estimated_latency_ms
              << "x)";
  std::cout << "; " << p.total_trials << " trials in " << std::setprecision(1) << p.elapsed_s
            << " s\n";
  if (p.unmeasured_tasks > 0)
    std::cout << "the estimate leaves out " << p.unmeasured_tasks << " of " << p.tasks.size()
              << " tasks whose default schedule was not measured (the budget ran out before "
                 "them, or it failed)\n";
  int unconfirmed = 0;
  for (const driver::TaskStatus& s : p.tasks) unconfirmed += s.unconfirmed;
  if (unconfirmed)
    std::cout << unconfirmed
              << " candidates that measured faster than their task's best were slower when "
                 "measured again alternately with it, and were not kept\n";
}

// The command line's view of the tuning events: a line per round after
// AutoTVM's, failed candidates as they happen, and the latency curve.
class ConsoleListener : public driver::TuningListener {
 public:
  explicit ConsoleListener(std::ofstream* curve) : curve_(curve) {}

  void on_start(const driver::TuningProgress& p) override {
    std::cout << "tuning " << p.tasks.size() << " tasks";
    if (p.planned_trials) std::cout << ", " << p.planned_trials << " trials";
    if (p.time_budget_s > 0) std::cout << ", time budget " << p.time_budget_s << " s";
    std::cout << std::endl;
    if (curve_) *curve_ << "elapsed_s,trials,estimated_ms,default_ms\n";
    for (const driver::TaskStatus& s : p.tasks)
      if (!s.fallback.empty())
        std::cout << "  task " << s.id << " falls back to the generic schedule (" << s.fallback
                  << "); searching the " << s.space << " space\n";
  }

  void on_trial(const driver::TrialEvent& e, const driver::TuningProgress& p) override {
    if (e.error_kind != "none") {
      std::string message = e.error_message.substr(0, e.error_message.find('\n'));
      std::cout << "  task " << p.tasks[static_cast<size_t>(e.task_index)].id << " trial "
                << e.trial << ": " << e.error_kind << " error: " << message.substr(0, 160) << "\n";
    }
  }

  void on_round(int task_index, const driver::TuningProgress& p) override {
    const driver::TaskStatus& s = p.tasks[static_cast<size_t>(task_index)];
    char line[256];
    std::snprintf(line, sizeof line,
                  "[Task %2d/%2zu] Current/Best: %7.1f/%7.1f GFLOPS | Progress: (%d/%s) | %.1f s",
                  task_index + 1, p.tasks.size(), s.current_gflops, s.best_gflops, p.total_trials,
                  p.planned_trials ? std::to_string(p.planned_trials).c_str() : "-", p.elapsed_s);
    std::cout << line;
    if (std::isfinite(p.estimated_latency_ms) && p.estimated_latency_ms > 0)
      std::cout << " | estimated " << format_ms(p.estimated_latency_ms) << " ms";
    std::cout << std::endl;
    if (curve_)
      *curve_ << p.elapsed_s << "," << p.total_trials << "," << p.estimated_latency_ms << ","
              << p.estimated_default_ms << std::endl;
  }

  void on_message(const std::string& text) override { std::cout << text << std::endl; }

 private:
  std::ofstream* curve_;
};

int tune(const Args& args) {
  Graph graph = load_model(args);
  const driver::Target target = target_of(args);
  driver::TuningPlan plan = driver::plan_tuning(graph, pass_options_of(args, target));
  std::vector<int> selected = driver::parse_task_selection(args.get("tasks"), plan.tasks.size());
  driver::TuningOptions options;
  const std::string flush = args.get("cache-flush", "auto");
  LATHE_CHECK(flush == "auto" || flush == "always" || flush == "never",
              "option --cache-flush must be auto, always or never, got '", flush, "'");
  options.cache_flush = flush == "always"  ? driver::CacheFlush::Always
                        : flush == "never" ? driver::CacheFlush::Never
                                           : driver::CacheFlush::Auto;
  const std::string cache_state = driver::measurement_cache_state(plan, options.cache_flush).reason;
  if (args.has("print-tasks")) {
    print_task_list(std::cout, plan.tasks, selected);
    std::cout << cache_state << "\n";
    return 0;
  }

  options.target = target;
  options.tuner = args.get("tuner", "xgb");
  options.space =
      args.has("enable-autoscheduler") ? driver::SpaceKind::Sketch : driver::SpaceKind::Template;
  options.scheduler = args.get("task-scheduler", "gradient");
  // Counts and times that must be positive (or, `zero_ok`, at least zero).
  auto check = [](const char* name, double value, bool zero_ok) {
    LATHE_CHECK(zero_ok ? value >= 0 : value > 0, "option --", name, " must be ",
                zero_ok ? "zero or more" : "positive", ", got ", value);
  };
  options.trials = args.get_int("trials", 0);
  check("trials", options.trials, true);
  if (args.has("time-budget")) options.time_budget_s = parse_duration(args.get("time-budget"));
  if (!options.trials && options.time_budget_s <= 0)
    options.trials = 64 * static_cast<int>(selected.size());
  options.early_stopping = args.get_int("early-stopping", 0);
  check("early-stopping", options.early_stopping, true);
  options.batch_size = args.get_int("batch-size", options.batch_size);
  check("batch-size", options.batch_size, false);
  options.seed = static_cast<uint64_t>(args.get_int("seed", 1));
  options.measure.number = args.get_int("number", options.measure.number);
  check("number", options.measure.number, false);
  options.measure.repeat = args.get_int("repeat", options.measure.repeat);
  check("repeat", options.measure.repeat, false);
  options.measure.min_repeat_ms = args.get_double("min-repeat-ms", options.measure.min_repeat_ms);
  check("min-repeat-ms", options.measure.min_repeat_ms, true);
  options.measure.timeout_s = args.get_double("timeout", options.measure.timeout_s);
  check("timeout", options.measure.timeout_s, false);
  options.records_path = args.get("output", "tuning_records.json");
  if (args.has("prior-records")) {
    driver::RecordFile prior = driver::read_records(args.get("prior-records"));
    for (const std::string& w : prior.warnings) std::cerr << "warning: " << w << "\n";
    options.prior_records = std::move(prior.records);
  }

  // The records' bests timed inside the model against the defaults (driver/in_model_check).
  auto check_in_model = [&] {
    driver::CompileOptions compile;
    compile.target = target;
    compile.passes = pass_options_of(args, target);
    std::cout << "\nchecking the best schedules inside the model against the defaults\n"
              << std::flush;
    const driver::InModelCheck check =
        driver::check_records_in_model(graph, compile, options.records_path);
    std::cout << driver::format_in_model_check(check) << "verdicts appended to "
              << options.records_path << "\n";
  };
  if (args.has("in-model-check-only")) {
    LATHE_CHECK(!args.has("no-in-model-check"),
                "--in-model-check-only and --no-in-model-check exclude each other");
    check_in_model();
    return 0;
  }

  std::ofstream curve_file;
  if (args.has("curve")) {
    curve_file.open(args.get("curve"));
    LATHE_CHECK(curve_file, "cannot write ", args.get("curve"));
  }
  if (!target.is_gpu()) std::cout << cache_state << "\n";
  ConsoleListener listener(args.has("curve") ? &curve_file : nullptr);
  auto session = driver::make_tuning_session(plan, selected, options, &listener);
  session->run();
  print_task_table(session->progress());
  std::cout << "records appended to " << options.records_path << "\n";
  // The in-model check runs models on the CPU's executor; a GPU's bests are
  // kept as measured (tools/gpu times the tuned model on the device).
  if (target.is_gpu() && !args.has("no-in-model-check"))
    std::cout << "no in-model check for '" << target.to_string()
              << "': every best applies (lathe compile --tuning-records)\n";
  else if (!args.has("no-in-model-check") && session->progress().total_trials > 0)
    check_in_model();
  return 0;
}

}  // namespace

Command tune_command(CLI::App& lathe) {
  auto args = std::make_shared<Args>(
      lathe, "tune",
      "Search schedules for a model's kernels, appending each measurement to records");
  args->positional("MODEL", "ONNX model file")
      .value("output", "FILE", "records file to append to (default tuning_records.json)")
      .value("trials", "N", "candidates to measure in all (default 64 per task)")
      .value("time-budget", "DURATION", "stop after this long: 20m, 90s, 1.5h, 300")
      .value("tasks", "IDS", "tune only these tasks: 0,3-5 (see --print-tasks)")
      .flag("print-tasks", "list the tasks and their weights, and stop")
      .value("tuner", "xgb|ga|random|grid", "search strategy (default xgb)")
      .flag("enable-autoscheduler", "search Ansor-style sketches instead of the templates")
      .value("task-scheduler", "gradient|round-robin", "which task gets the next round")
      .value("early-stopping", "N", "stop a task after N trials without improvement")
      .value("prior-records", "FILE", "records of earlier sessions to start from")
      .value("number", "N", "runs per measurement (default 1)")
      .value("repeat", "N", "measurements per candidate (default 3)")
      .value("min-repeat-ms", "MS", "least time one measurement lasts (default 10)")
      .value("cache-flush", "auto|always|never",
             "weights and outputs out of cache before each run; auto (default): when the model "
             "outgrows half the last-level cache")
      .value("timeout", "S", "seconds before a candidate's build or run is abandoned (default 10)")
      .value("batch-size", "N", "candidates built together (default 16)")
      .value("seed", "N", "random seed of the search (default 1)")
      .value("curve", "FILE.csv", "write the estimated latency after every round")
      .flag("no-in-model-check",
            "skip timing the bests inside the model against the defaults after the search")
      .flag("in-model-check-only",
            "only time the --output records' bests inside the model against the defaults, "
            "appending the verdicts `lathe compile --tuning-records` follows")
      .target_option()
      .input_shapes_option()
      .plugin_option()
      .no_layout_flag();
  return {args, tune};
}

}  // namespace lathe::cli
