#include "driver/compiled_module.h"

#include <dlfcn.h>

#include "codegen/codegen.h"
#include "driver/package_writer.h"
#include "support/error.h"
#include "support/timer.h"

namespace lathe::driver {

JitGraphModule::JitGraphModule(const CompiledGraph& compiled, const codegen::Target& target) {
  Timer timer;
  module_ = codegen::jit_compile(all_funcs(compiled), target);
  jit_ms_ = timer.milliseconds();
  const codegen::CompiledModule& module = module_;
  // External codegens' tables from their runtime libraries, which the
  // plugins that registered the codegens have already loaded.
  const std::map<std::string, std::string>& libraries = compiled.external_libraries;
  executor_ = std::make_unique<runtime::GraphExecutor>(
      compiled.desc,
      [&module](const std::string& name) -> runtime::KernelFunction {
        return module.has_kernel(name) ? module.kernel(name).function() : nullptr;
      },
      compiled.params,
      [&libraries](const std::string& name) -> const LatheExternalFunctions* {
        auto it = libraries.find(name);
        if (it == libraries.end()) return nullptr;
        void* library = dlopen(it->second.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed
        if (!library) fail(str("cannot load ", it->second, ": ", dlerror()));
        auto entry = reinterpret_cast<LatheExternalEntry>(dlsym(library, name.c_str()));
        return entry ? entry() : nullptr;
      });
}

std::vector<Tensor> run_compiled(const Graph& graph, const std::map<std::string, Tensor>& inputs,
                                 const CompileOptions& options) {
  CompiledGraph compiled = compile_graph(graph, options);
  JitGraphModule module(compiled, options.target);
  runtime::GraphExecutor& exec = module.executor();
  for (int i = 0; i < exec.num_inputs(); ++i) {
    auto it = inputs.find(exec.input_name(i));
    if (it != inputs.end()) exec.set_input(it->first, it->second.raw(), it->second.nbytes());
  }
  exec.run();
  std::vector<Tensor> outputs;
  for (int i = 0; i < exec.num_outputs(); ++i) outputs.push_back(from_ndarray(exec.output(i)));
  return outputs;
}

double export_package(const CompiledGraph& compiled, const codegen::Target& target,
                      const std::string& path) {
  Timer timer;
  std::vector<char> object = codegen::emit_object(all_funcs(compiled), target);
  double ms = timer.milliseconds();
  // The package names the CPU it was built for even when the target said
  // "the host", so a load elsewhere can say which CPU it needs.
  codegen::Target named = target;
  if (named.mcpu.empty()) named.mcpu = target.cpu();
  std::vector<std::string> libraries;
  for (const auto& [symbol, library] : compiled.external_libraries) libraries.push_back(library);
  write_package(path, object, compiled.desc, compiled.params, named.to_string(),
                target.isa_features(), libraries);
  return ms;
}

}  // namespace lathe::driver
