// lathe tasks MODEL: the fused groups the compiler makes kernels of.
#include <iomanip>
#include <iostream>

#include "args.h"
#include "commands.h"
#include "driver/graph_compiler.h"
#include "driver/model_loader.h"
#include "driver/target.h"
#include "model_options.h"
#include "support/error.h"
#include "task_list.h"

namespace lathe::cli {

namespace {

int tasks(const Args& args) {
  Graph graph = load_model(args);
  const driver::Target target = target_of(args);
  driver::OptimizedGraph optimized = driver::optimize_graph(graph, pass_options_of(args, target));
  std::vector<driver::KernelTask> kernels = driver::kernel_tasks(optimized, target);
  print_task_list(std::cout, kernels);
  int64_t total = 0;
  for (const driver::KernelTask& t : kernels)
    total += t.flops * static_cast<int64_t>(t.groups.size());
  std::cout << kernels.size() << " kernels for " << optimized.groups.size() << " fused groups, "
            << std::fixed << std::setprecision(1) << static_cast<double>(total) / 1e6
            << " MFLOPs per run\n";
  return 0;
}

}  // namespace

Command tasks_command(CLI::App& lathe) {
  auto args = std::make_shared<Args>(
      lathe, "tasks",
      "List the fused groups the compiler makes kernels of, with FLOPs and schedules");
  args->positional("MODEL", "ONNX model file")
      .target_option()
      .input_shapes_option()
      .plugin_option()
      .no_layout_flag();
  return {args, tasks};
}

}  // namespace lathe::cli
