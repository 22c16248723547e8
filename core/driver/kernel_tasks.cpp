#include "driver/kernel_tasks.h"

#include "driver/gpu_module.h"
#include "support/error.h"

namespace lathe::driver {

std::vector<KernelTask> kernel_tasks(const OptimizedGraph& optimized, const Target& target) {
  std::vector<KernelTask> tasks = tune::extract_tasks(optimized.graph, optimized.groups);
  if (!target.is_gpu()) {
    tune::describe_task_spaces(optimized.graph, optimized.groups, tasks, optimized.vector_unit);
    return tasks;
  }
  for (KernelTask& task : tasks) {
    task.fallback.clear();
    try {
      task.space =
          gpu_search_space(tune::build_group_computation(
                               optimized.graph, optimized.groups.at(size_t(task.groups.at(0))),
                               optimized.vector_unit),
                           target)
              .name;
    } catch (const UnsupportedError&) {
      task.space.clear();
    }
  }
  return tasks;
}

}  // namespace lathe::driver
