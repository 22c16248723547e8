#include "driver/reference_run.h"

#include "reference/executor.h"

namespace lathe::driver {

std::vector<Tensor> run_reference(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
  return reference::Executor(graph).run(inputs);
}

}  // namespace lathe::driver
