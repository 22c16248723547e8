// How the int8 graph tests run a one-input graph: by the reference executor
// (the definition) and compiled through the whole pipeline, keeping the
// optimized graph for structural checks.
#pragma once

#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "reference/executor.h"

namespace lathe::testing {

inline Tensor run_reference(const Graph& g, const Tensor& x) {
  return reference::Executor(g).run({{g.value(g.inputs[0]).name, x}})[0];
}

struct Compiled {
  Tensor output;
  Graph optimized;
};

inline Compiled run_compiled(const Graph& g, const Tensor& x) {
  driver::CompileOptions options;
  options.passes.record_snapshots = false;
  const driver::CompiledGraph compiled = driver::compile_graph(g, options);
  driver::JitGraphModule module(compiled, options.target);
  runtime::GraphExecutor& exec = module.executor();
  exec.set_input(exec.input_name(0), x.raw(), x.nbytes());
  exec.run();
  return {driver::from_ndarray(exec.output(0)), compiled.optimized.graph};
}

}  // namespace lathe::testing
