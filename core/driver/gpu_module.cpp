#include "driver/gpu_module.h"

#include "codegen/codegen.h"
#include "codegen/gpu_simulator.h"
#include "driver/package_writer.h"
#include "runtime/cuda_device_api.h"
#include "runtime/package.h"
#include "support/error.h"
#include "support/timer.h"
#include "tune/gpu_task.h"

namespace lathe::driver {

topi::SearchSpace gpu_search_space(const tune::GroupComputation& computation,
                                   const Target& target) {
  return tune::gpu_template_search_space(computation, target);
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
  // The subgraphs' kernels too: one module holds every kernel a control-flow
  // node may launch.
  const std::vector<tir::PrimFunc> funcs = all_funcs(compiled);
  for (const tir::PrimFunc& f : funcs)
    module.launches.push_back(codegen::verify_gpu_func(f, target));
  module.ptx = codegen::emit_assembly(funcs, target);
  module.llvm_ms = timer.milliseconds();
  return module;
}

namespace {

// Refuses what a device executor cannot run at any depth: an external node,
// or a kernel without a launch (its module lacks it).
void check_device_graph(const runtime::GraphModuleDesc& graph,
                        const std::map<std::string, runtime::KernelLaunch>& launches) {
  for (const runtime::GraphNode& node : graph.nodes) {
    if (node.external)
      fail(str("node '", node.name, "' runs through an external codegen ('", node.func_name,
               "'), which runs on the host only"));
    if (node.is_op() && node.control_flow.empty() && !launches.count(node.func_name))
      fail(str("kernel '", node.func_name, "' of node '", node.name, "' is not in the GPU module"));
  }
  for (const runtime::GraphModuleDesc& sub : graph.subgraphs) check_device_graph(sub, launches);
}

}  // namespace

runtime::GraphModuleDesc gpu_graph_desc(const CompiledGraph& compiled,
                                        const std::vector<GpuLaunch>& launches,
                                        const Target& target) {
  runtime::GraphModuleDesc desc = compiled.desc;
  desc.target = target.to_string();
  for (const GpuLaunch& l : launches) desc.launches[l.kernel] = {l.grid, l.block, l.shared_bytes};
  check_device_graph(desc, desc.launches);
  return desc;
}

std::unique_ptr<runtime::GraphExecutor> make_gpu_executor(const CompiledGraph& compiled,
                                                          const Target& target) {
  const GpuModule module = build_gpu_module(compiled, target);
  runtime::GraphModuleDesc desc = gpu_graph_desc(compiled, module.launches, target);
  try {
    runtime::CudaDeviceAPI::get(0);
  } catch (const runtime::Error& e) {
    fail(str("--target ", target.to_string(), " runs on the GPU; ", runtime::cuda_driver_library(),
             " is not available: ", e.what()));
  }
  return runtime::make_cuda_executor(std::move(desc), module.ptx, compiled.params);
}

std::unique_ptr<runtime::GraphExecutor> make_simulated_gpu_executor(const CompiledGraph& compiled,
                                                                    const Target& target) {
  if (!target.is_gpu())
    fail(str("target '", target.to_string(), "' is not a GPU; the GPU simulator runs GPU builds"));
  const std::vector<tir::PrimFunc> funcs = all_funcs(compiled);
  auto module = std::make_shared<const codegen::SimulatedGpuModule>(funcs, target);
  std::vector<GpuLaunch> launches;
  for (const tir::PrimFunc& f : funcs) launches.push_back(module->launch(f.name));
  runtime::DeviceKernels kernels{
      runtime::host_device_api(), [module](const std::string& name) -> runtime::DeviceKernel {
        if (!module->has_kernel(name))
          throw runtime::Error("kernel '" + name + "' is not in the simulated GPU module");
        return [module, name](void* const* buffers, size_t count) {
          module->run(name, buffers, count);
        };
      }};
  return std::make_unique<runtime::GraphExecutor>(gpu_graph_desc(compiled, launches, target),
                                                  kernels, compiled.params);
}

std::string device_description(runtime::Device device) {
  if (device.type != runtime::DeviceType::Cuda) return device.to_string();
  return device.to_string() + " (" + runtime::CudaDeviceAPI::get(device.id)->name() + ")";
}

GpuModule export_gpu_package(const CompiledGraph& compiled, const Target& target,
                             const std::string& path) {
  GpuModule module = build_gpu_module(compiled, target);
  write_gpu_package(path, module.ptx, gpu_graph_desc(compiled, module.launches, target),
                    compiled.params);
  return module;
}

}  // namespace lathe::driver
