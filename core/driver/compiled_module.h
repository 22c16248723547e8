// A compiled graph made runnable: JIT-compiled into this process, or
// exported as a package (mod.so, mod.json, mod.params in a tar) that the
// runtime library loads on its own.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "codegen/codegen.h"
#include "driver/graph_compiler.h"
#include "runtime/graph_executor.h"

namespace lathe::driver {

class JitGraphModule {
 public:
  JitGraphModule(const CompiledGraph& compiled, const codegen::Target& target);
  runtime::GraphExecutor& executor() { return *executor_; }
  double jit_ms() const { return jit_ms_; }

 private:
  codegen::CompiledModule module_;  // owns the code the executor calls
  std::unique_ptr<runtime::GraphExecutor> executor_;
  double jit_ms_ = 0;
};

// Compiles `graph`, JIT-compiles it and runs it once on `inputs` (by graph
// input name; inputs not given stay zero): the compiled twin of
// reference::Executor::run, for tests and conformance runs.
std::vector<Tensor> run_compiled(const Graph& graph, const std::map<std::string, Tensor>& inputs,
                                 const CompileOptions& options = {});

// Writes module.tar; returns the milliseconds spent in LLVM (object emission).
double export_package(const CompiledGraph& compiled, const codegen::Target& target,
                      const std::string& path);

}  // namespace lathe::driver
