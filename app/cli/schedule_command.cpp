// lathe schedule MODEL --task ID [--schedule FILE] [--emit tir|llvm|asm [--loop-costs]]
// [--measure [--cache-flush]] [--target cuda [--simulate-gpu] [--ptxas]]
// lathe schedule MODEL --task ID --diff A B [--tuning-records R] [--no-measure] [--unified]
// The command-line twin of the studio's schedule editor and its diff view.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "args.h"
#include "commands.h"
#include "driver/gpu_module.h"
#include "driver/gpu_schedule_check.h"
#include "driver/kernel_code.h"
#include "driver/kernel_roofline.h"
#include "driver/kernel_workbench.h"
#include "driver/loop_costs.h"
#include "driver/model_loader.h"
#include "driver/ptx_resources.h"
#include "driver/schedule_diff.h"
#include "model_options.h"
#include "schedule_diff_text.h"
#include "support/error.h"

namespace lathe::cli {

namespace {

// The loop IR with the Schedule tab's per-loop costs: each `for` line ends with
// its note (trip count, share of the time, one iteration's working set), a
// "!" before the note when the loop is marked, and every loop's explanation
// follows the code, keyed by line number (from 1, as an editor counts).
std::string loop_ir_with_costs(const tir::PrimFunc& func, const driver::Target& target) {
  const driver::AnnotatedLoopIR annotated =
      driver::annotated_loop_ir(func, driver::this_loop_cost_machine(target));
  std::vector<std::string> lines;
  std::istringstream in(annotated.loop_ir);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (const driver::LoopNote& loop : annotated.loops) {
    if (loop.line < 0 || loop.line >= static_cast<int>(lines.size())) continue;
    std::string& line = lines[static_cast<size_t>(loop.line)];
    line += (loop.spill_reason.empty() ? "  # " : "  # ! ") + loop.note;
  }
  std::ostringstream out;
  for (const std::string& line : lines) out << line << "\n";
  out << std::fixed << std::setprecision(4) << "\n# estimated " << annotated.estimated_ms
      << " ms (cold caches)\n";
  for (const driver::LoopNote& loop : annotated.loops) {
    out << "# line " << loop.line + 1 << ":";
    std::istringstream explanation(loop.explanation);
    for (std::string part; std::getline(explanation, part);) out << "\n#   " << part;
    out << "\n";
  }
  return out.str();
}

// Two schedules of the task, their measurements, knobs and loop IRs side by side.
int diff(const Args& args, const driver::KernelWorkbench& bench, const driver::Target& target) {
  for (const char* option : {"schedule", "emit", "measure", "cache-flush", "loop-costs"})
    LATHE_CHECK(!args.has(option),
                "--diff compares the two schedules it names and measures them "
                "with caches flushed: it takes no --",
                option);
  const std::vector<std::string> specs = args.get_all("diff");
  const std::string records = args.get("tuning-records");
  driver::ScheduleDiff diff = driver::diff_schedules(
      bench, driver::resolve_diff_schedule(specs.at(0), bench, records, target),
      driver::resolve_diff_schedule(specs.at(1), bench, records, target));
  if (!args.has("no-measure"))
    driver::measure_schedule_diff(diff, bench, target, driver::machine_roof(),
                                  args.get_int("repeat", 20));
  DiffLayout layout;
  layout.width = args.get_int("width", terminal_width());
  layout.unified = args.has("unified");
  std::cout << format_schedule_diff(diff, layout);
  const bool wrong = diff.a.measurement && (!diff.a.measurement->kernel.matches_reference() ||
                                            !diff.b.measurement->kernel.matches_reference());
  return wrong ? 3 : 0;
}

int schedule(const Args& args) {
  LATHE_CHECK(args.has("task"), "--task is required: which kernel (see lathe tasks)");
  Graph graph = load_model(args);
  const driver::Target target = target_of(args);
  driver::OptimizedGraph optimized = driver::optimize_graph(graph, pass_options_of(args, target));
  std::vector<driver::KernelTask> tasks = driver::kernel_tasks(optimized, target);
  int id = args.get_int("task", -1);
  LATHE_CHECK(id >= 0 && id < static_cast<int>(tasks.size()), "no task ", args.get("task"),
              "; the model has tasks 0 to ", tasks.size() - 1, " (see lathe tasks)");
  driver::KernelWorkbench bench(optimized.graph, optimized.groups, tasks[static_cast<size_t>(id)],
                                optimized.vector_unit);
  if (args.has("diff")) return diff(args, bench, target);
  for (const char* option : {"tuning-records", "no-measure", "unified", "width"})
    LATHE_CHECK(!args.has(option), "--", option, " goes with --diff");
  LATHE_CHECK(
      !args.has("loop-costs") || (args.get("emit") == "tir" && !args.has("passes")),
      "--loop-costs annotates the final loop IR: it goes with --emit tir, without --passes");

  std::string text;
  if (args.has("schedule")) {
    std::ifstream in(args.get("schedule"));
    LATHE_CHECK(in, "cannot read schedule file ", args.get("schedule"));
    std::stringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  } else {
    text = target.is_gpu() ? driver::gpu_default_schedule_text(bench, target)
                           : bench.default_schedule_text();
  }
  std::cout << "# task " << id << ": " << bench.task().func_name << "  " << bench.task().signature
            << "\n";
  if (!args.has("schedule") && !bench.task().fallback.empty() && !target.is_gpu())
    std::cout << "# the generic " << bench.task().space
              << " schedule, its template having no point for this kernel: "
              << bench.task().fallback << "\n";
  std::string emit = args.get("emit");
  if (emit.empty() && !args.has("measure") && !args.has("simulate-gpu") && !args.has("ptxas"))
    emit = "schedule";
  driver::LoweredFunc lowered;
  try {
    lowered = target.is_gpu() ? driver::lower_for_gpu(bench, text, target, args.has("passes"))
                              : bench.lower(text, args.has("passes"));
    // What becomes a kernel is verified here, so that a problem is reported
    // at its line of the schedule; the schedule and its loop IR print as
    // they are, for a look at what the verifier would refuse.
    if (target.is_gpu() && emit != "schedule" && emit != "tir")
      driver::verify_gpu_schedule(text, lowered.func, target);
  } catch (const driver::ScheduleTextError& e) {
    throw Error(args.get("schedule", "default schedule") + ":\n" + e.what());
  }
  if (emit == "schedule") {
    std::cout << text;
  } else if (emit == "tir") {
    if (args.has("passes"))
      for (const driver::PassSnapshot& p : lowered.passes)
        std::cout << "# after " << p.pass << " (" << p.milliseconds << " ms)\n" << p.ir << "\n";
    else if (args.has("loop-costs"))
      std::cout << loop_ir_with_costs(lowered.func, target);
    else
      std::cout << driver::loop_ir_text(lowered.func);
  } else if (emit == "llvm") {
    std::cout << driver::llvm_ir_text(lowered.func, target);
  } else if (emit == "asm") {
    std::cout << driver::assembly_text(lowered.func, target);
  } else if (!emit.empty()) {
    fail(str("unknown --emit '", emit, "'; expected tir, llvm or asm"));
  }
  if (args.has("ptxas")) {
    // What CUDA's ptxas makes of the kernel, and the occupancy that gives,
    // as the studio's PTX view heads it.
    LATHE_CHECK(target.is_gpu(), "--ptxas reports a GPU kernel's resources; give --target cuda");
    const driver::PtxasReport report =
        driver::assemble_ptx(driver::assembly_text(lowered.func, target), target.cpu());
    if (!report.ok()) fail(report.problem);
    const int64_t threads =
        driver::verify_gpu_schedule(text, lowered.func, target).threads_per_block();
    std::cout << driver::format_ptxas_report(report, {{lowered.func.name, threads}});
  }
  if (args.has("measure")) {
    driver::KernelMeasurement m =
        bench.measure(lowered.func, target, args.get_int("repeat", 50), args.has("cache-flush"));
    std::cout << std::fixed << std::setprecision(4) << "median " << m.median_ms << " ms, best "
              << m.best_ms << " ms over " << m.runs << " runs"
              << (args.has("cache-flush") ? " (weights and outputs flushed before each)" : "")
              << ", " << std::setprecision(2) << m.gflops
              << " GFLOPS, max normalized error against the reference " << std::scientific
              << std::setprecision(2) << m.max_error
              << (m.max_error <= 1e-4 ? " (ok)" : " (MISMATCH)") << "\n";
    if (m.max_error > 1e-4) return 3;
  }
  if (args.has("simulate-gpu")) {
    LATHE_CHECK(target.is_gpu(),
                "--simulate-gpu runs a GPU kernel on the host; give --target cuda");
    const double error = bench.simulate_on_gpu(lowered.func, target);
    std::cout << "on the GPU simulator: max normalized error against the reference "
              << std::scientific << std::setprecision(2) << error
              << (error <= driver::KernelMeasurement::kReferenceTolerance ? " (ok)" : " (MISMATCH)")
              << "\n";
    if (error > driver::KernelMeasurement::kReferenceTolerance) return 3;
  }
  return 0;
}

}  // namespace

Command schedule_command(CLI::App& lathe) {
  auto args = std::make_shared<Args>(
      lathe, "schedule",
      "Lower a task's schedule, print its code, measure it against the reference");
  args->positional("MODEL", "ONNX model file")
      .value("task", "ID", "the kernel, by its id in `lathe tasks` (required)")
      .value("schedule", "FILE", "schedule text in TVM's syntax (default: the default schedule)")
      .value("emit", "tir|llvm|asm|schedule", "what to print (default: the schedule text)")
      .flag("passes", "with --emit tir, the loop IR after every lowering pass")
      .flag("loop-costs",
            "with --emit tir, each loop's trip count, share of the time and working set, "
            "and why a loop is marked")
      .flag("measure", "time the kernel and compare it with the reference executor")
      .value("repeat", "N", "runs to time with --measure (default 50; with --diff 20 a round)")
      .flag("cache-flush", "evict weights and outputs before each run, as tuning does")
      .flag("simulate-gpu",
            "with --target cuda: run the kernel once on the host's GPU simulator and compare it "
            "with the reference executor (checks a GPU schedule without a GPU)")
      .flag("ptxas",
            "with --target cuda: the kernel's registers, spills, shared memory and occupancy "
            "from CUDA's ptxas -v (on PATH or in /usr/local/cuda/bin)")
      .values("diff", "SCHEDULE", 2,
              "compare two schedules A B: each default, best, a record index or a schedule file")
      .value("tuning-records", "FILE", "with --diff: the records best and record indices read")
      .flag("no-measure", "with --diff: compare the code only, do not time it")
      .flag("unified", "with --diff: the loop IR as a unified diff, not side by side")
      .value("width", "N",
             "with --diff: columns of the side-by-side diff (default: the terminal's)")
      .target_option()
      .input_shapes_option()
      .plugin_option()
      .no_layout_flag();
  return {args, schedule};
}

}  // namespace lathe::cli
