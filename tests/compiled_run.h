// Runs a graph through the compiler and the JIT, the way `lathe run` does,
// for tests that compare the compiled build against the reference executor
// or a definition computed in the test.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace lathe::testing {

inline std::vector<Tensor> run_compiled(const Graph& g,
                                        const std::map<std::string, Tensor>& inputs) {
  const driver::CompiledGraph compiled = driver::compile_graph(g);
  driver::JitGraphModule module(compiled, codegen::Target::host());
  runtime::GraphExecutor& exec = module.executor();
  for (const auto& [name, t] : inputs) exec.set_input(name, t.raw(), t.nbytes());
  exec.run();
  std::vector<Tensor> outs;
  for (size_t k = 0; k < g.outputs.size(); ++k)
    outs.push_back(driver::from_ndarray(exec.output(static_cast<int>(k))));
  return outs;
}

}  // namespace lathe::testing
