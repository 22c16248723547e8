#include "driver/kernel_tasks.h"

namespace lathe::driver {

std::vector<KernelTask> kernel_tasks(const OptimizedGraph& optimized) {
  std::vector<KernelTask> tasks = tune::extract_tasks(optimized.graph, optimized.groups);
  tune::describe_task_spaces(optimized.graph, optimized.groups, tasks, optimized.vector_unit);
  return tasks;
}

}  // namespace lathe::driver
