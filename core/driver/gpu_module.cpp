#include "driver/gpu_module.h"

#include "codegen/codegen.h"
#include "support/error.h"
#include "support/timer.h"
#include "topi/schedule_cuda.h"

namespace lathe::driver {

topi::SearchSpace gpu_search_space(const tune::GroupComputation& computation,
                                   const Target& target) {
  if (!target.is_gpu())
    fail(str("target '", target.to_string(), "' is not a GPU; its groups take the CPU templates"));
  const char* kind = codegen::target_kind_name(target.kind);
  topi::OpTemplateFn fn =
      computation.anchor_strategy ? computation.anchor_strategy->template_for(kind) : nullptr;
  if (!fn) fn = topi::cuda_default_template;
  return fn(computation.anchor, computation.outputs, target.vector_unit());
}

std::string gpu_default_schedule_text(const KernelWorkbench& bench, const Target& target) {
  const topi::SearchSpace space = gpu_search_space(bench.computation(), target);
  return schedule::print_schedule(
      *tune::apply_config(bench.computation(), space, space.default_config));
}

LoweredFunc lower_for_gpu(const KernelWorkbench& bench, const std::string& schedule_text,
                          const Target& target, bool record_ir) {
  std::unique_ptr<schedule::Schedule> sch =
      schedule_text.empty() ? nullptr
                            : tune::parse_group_schedule(bench.computation(), schedule_text);
  if (!sch) {
    const topi::SearchSpace space = gpu_search_space(bench.computation(), target);
    sch = tune::apply_config(bench.computation(), space, space.default_config);
  }
  return tir::lower(*sch, bench.computation().args(), bench.task().func_name,
                    {.record_ir = record_ir, .target = target.to_string()});
}

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
