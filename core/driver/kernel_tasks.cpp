#include "driver/kernel_tasks.h"

namespace lathe::driver {

std::vector<KernelTask> kernel_tasks(const OptimizedGraph& optimized) {
  return tune::extract_tasks(optimized.graph, optimized.groups);
}

}  // namespace lathe::driver
