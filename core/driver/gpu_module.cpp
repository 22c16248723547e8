#include "driver/gpu_module.h"

#include "codegen/codegen.h"
#include "support/error.h"
#include "support/timer.h"

namespace lathe::driver {

GpuModule build_gpu_module(const CompiledGraph& compiled, const Target& target) {
  if (!target.is_gpu())
    fail(str("target '", target.to_string(), "' is not a GPU; CPU builds make packages"));
  Timer timer;
  GpuModule module;
  for (const tir::PrimFunc& f : compiled.funcs)
    module.launches.push_back(codegen::verify_gpu_func(f, target));
  module.ptx = codegen::emit_assembly(compiled.funcs, target);
  module.llvm_ms = timer.milliseconds();
  return module;
}

}  // namespace lathe::driver
