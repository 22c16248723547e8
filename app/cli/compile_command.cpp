// lathe compile MODEL [--target T] [--input-shapes S] [--inputs in.npz] [--print-tasks]
//               --output module.lathe.tar   (--target cuda: a cuda package, mod.ptx inside;
//                                            --output X.ptx: the PTX module alone;
//                                            --ptxas: each kernel's registers, spills and
//                                            shared memory from CUDA's ptxas -v)
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "driver/compiled_module.h"
#include "driver/gpu_module.h"
#include "driver/model_loader.h"
#include "driver/ptx_resources.h"
#include "driver/tuning_records.h"
#include "model_options.h"
#include "support/error.h"
#include "support/timer.h"
#include "task_list.h"

namespace lathe::cli {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A GPU build: a cuda package (mod.ptx with every kernel, mod.json with the
// graph and each kernel's launch, mod.params), or with --output X.ptx the
// PTX module alone.
int write_gpu_module(const Args& args, const driver::CompiledGraph& compiled,
                     const driver::Target& target, const Timer& total) {
  const std::string output = args.get("output", "module.lathe.tar");
  const bool ptx_only = ends_with(output, ".ptx");
  driver::GpuModule module;
  if (ptx_only) {
    module = driver::build_gpu_module(compiled, target);
    std::ofstream out(output, std::ios::binary);
    out << module.ptx;
    out.close();
    if (!out) fail(str("cannot write ", output));
  } else {
    module = driver::export_gpu_package(compiled, target, output);
  }
  std::cout << "compiled " << args.positional() << " for " << target.to_string() << ": "
            << compiled.optimized.groups.size() << " fused groups, " << compiled.tasks.size()
            << " kernels\n"
            << "  graph passes " << compiled.passes_ms << " ms, lowering " << compiled.lower_ms
            << " ms, LLVM " << module.llvm_ms << " ms, total " << total.milliseconds() << " ms\n"
            << "wrote " << output << (ptx_only ? " (PTX)\n" : " (cuda package)\n");
  // The launches are the subgraphs' kernels' too, in all_tasks' order.
  const std::vector<driver::KernelTask> tasks = driver::all_tasks(compiled);
  for (size_t i = 0; i < module.launches.size(); ++i) {
    const driver::GpuLaunch& l = module.launches[i];
    std::cout << "  " << l.kernel << "  grid " << l.grid[0] << "x" << l.grid[1] << "x" << l.grid[2]
              << "  block " << l.block[0] << "x" << l.block[1] << "x" << l.block[2] << "  shared "
              << l.shared_bytes << " B  (" << tasks.at(i).space << ")\n";
  }
  if (args.has("ptxas")) {
    // What the GPU's own assembler makes of the PTX: run time, not build time.
    const driver::PtxasReport report = driver::assemble_ptx(module.ptx, target.cpu());
    if (!report.ok()) fail(report.problem);
    std::map<std::string, int64_t> threads;
    for (const driver::GpuLaunch& l : module.launches) threads[l.kernel] = l.threads_per_block();
    std::cout << driver::format_ptxas_report(report, threads);
  }
  return 0;
}

int compile(const Args& args) {
  Timer total;
  Graph graph = load_model(args, args.get("inputs"));
  driver::CompileOptions options;
  options.target = target_of(args);
  options.passes.alter_layout = !args.has("no-layout");
  // Which tasks the records cover, to say which ones keep their default schedule.
  std::vector<std::string> untuned, slower_in_model;
  std::set<int> tuned;
  std::optional<driver::TuningRecordSet> records;
  if (args.has("tuning-records")) {
    records = driver::load_tuning_records(args.get("tuning-records"), options.target);
    for (const std::string& w : records->warnings) std::cerr << "warning: " << w << "\n";
    options.schedule_for = [&](const driver::KernelTask& task) {
      std::optional<std::string> text = records->schedule_for(task);
      const std::string name = std::to_string(task.id) + " " + task.func_name;
      if (text)
        tuned.insert(task.id);
      else if (records->slower_in_model.count(tune::task_workload_id(task)))
        slower_in_model.push_back(name);
      else
        untuned.push_back(name);
      return text;
    };
  }
  if (args.has("ptxas") && !options.target.is_gpu())
    fail(str("--ptxas reports a GPU build's kernels; the target is '", options.target.to_string(),
             "' (use --target cuda)"));
  driver::CompiledGraph compiled = driver::compile_graph(graph, options);
  if (options.target.is_gpu()) return write_gpu_module(args, compiled, options.target, total);
  // .lathe.tar: still a tar for tools that want one (tvmc writes module.tar), and a name
  // shared-mime-info can tell from other tars (packaging/desktop/lathe.xml).
  std::string output = args.get("output", "module.lathe.tar");
  double llvm_ms = driver::export_package(compiled, options.target, output);
  // Subgraphs' kernels too, named after the subgraph they are in.
  const std::vector<driver::KernelTask> tasks = driver::all_tasks(compiled);
  std::cout << "compiled " << args.positional() << " for " << options.target.to_string() << ": "
            << compiled.optimized.groups.size() << " fused groups, " << tasks.size() << " kernels, "
            << compiled.params.size() << " parameters\n"
            << "  graph passes " << compiled.passes_ms << " ms, lowering " << compiled.lower_ms
            << " ms, LLVM " << llvm_ms << " ms, total " << total.milliseconds() << " ms\n"
            << "wrote " << output << "\n";
  if (args.has("print-tasks")) {
    print_task_list(std::cout, tasks, {}, tuned);
  } else {
    print_fallbacks(std::cout, tasks);
  }
  if (records) {
    std::cout << "tuning records: " << tuned.size() << " of " << compiled.tasks.size()
              << " kernels use a tuned schedule";
    if (records->other_target)
      std::cout << " (" << records->other_target << " records for other targets ignored)";
    if (!slower_in_model.empty()) {
      std::cout << "; the default, for a best that was slower inside the model "
                   "(lathe tune's in-model check):";
      for (const std::string& t : slower_in_model) std::cout << "\n  task " << t;
    }
    if (!untuned.empty()) {
      std::cout << (slower_in_model.empty() ? "; " : "\n") << "no record for:";
      for (const std::string& t : untuned) std::cout << "\n  task " << t;
    }
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

Command compile_command(CLI::App& lathe) {
  auto args = std::make_shared<Args>(
      lathe, "compile", "Compile a model into a package (mod.so, mod.json, mod.params in a tar)");
  args->positional("MODEL", "ONNX model file")
      .value("output", "FILE",
             "package to write (default module.lathe.tar; for a cuda target a cuda package, or "
             "with a .ptx name the PTX module alone)")
      .target_option()
      .input_shapes_option()
      .value("inputs", "FILE.npz",
             "arrays by input name whose shapes give the dimensions the model leaves symbolic "
             "(as `lathe run --inputs`)")
      .plugin_option()
      .value("tuning-records", "FILE", "apply the best schedule of each task from `lathe tune`")
      .flag("ptxas",
            "cuda: assemble the PTX with CUDA's ptxas -v (on PATH or in /usr/local/cuda/bin) "
            "and print each kernel's registers, spills and shared memory")
      .flag("print-tasks",
            "list the kernels and the schedule each got, and why any fell back to the generic one")
      .no_layout_flag();
  return {args, compile};
}

}  // namespace lathe::cli
