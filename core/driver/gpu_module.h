// A compiled graph for a GPU target as PTX: every kernel of the graph in one
// PTX module, with the launch each one needs (grid, block, shared memory);
// the graph description that carries those launches, and the cuda package
// (mod.ptx, mod.json, mod.params) that runtime::Package loads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/gpu_launch.h"
#include "driver/graph_compiler.h"
#include "driver/kernel_workbench.h"
#include "runtime/graph_executor.h"
#include "topi/config_space.h"

namespace lathe::driver {

using GpuLaunch = codegen::GpuLaunch;

struct GpuModule {
  std::string ptx;                  // one module, a .entry per kernel
  std::vector<GpuLaunch> launches;  // launches[i] is compiled.funcs[i]'s
  double llvm_ms = 0;               // verification and PTX emission
};

// The search space a GPU target schedules a group with: the anchor op's
// template for the target's kind, else the kind's default
// (topi/schedule_cuda.h); never a CPU template.
topi::SearchSpace gpu_search_space(const tune::GroupComputation& computation, const Target& target);

// The workbench's task for a GPU target (`lathe schedule --target cuda`): its
// default schedule as text, and a schedule text lowered with the target
// recorded and the GPU passes (barriers). Throws ScheduleTextError for a bad text.
std::string gpu_default_schedule_text(const KernelWorkbench& bench, const Target& target);
LoweredFunc lower_for_gpu(const KernelWorkbench& bench, const std::string& schedule_text,
                          const Target& target, bool record_ir = true);

// Verifies every kernel for the target's device and emits the PTX. Throws
// lathe::Error for a target that is not a GPU and for a kernel the verifier
// refuses (naming it and the loop).
GpuModule build_gpu_module(const CompiledGraph& compiled, const Target& target);

// compiled.desc with the target and the kernels' launches (its subgraphs'
// kernels' too: control flow runs on the host between GPU kernels), as a
// cuda package's mod.json and the runtime's GPU executor take it. Throws
// lathe::Error naming an external node, at any depth.
runtime::GraphModuleDesc gpu_graph_desc(const CompiledGraph& compiled,
                                        const std::vector<GpuLaunch>& launches,
                                        const Target& target);

// Builds the module and makes its executor on GPU 0 (what `lathe run
// --target cuda` runs). Throws lathe::Error saying the target runs on the GPU
// and why the driver is not available, and runtime::Error for the driver's
// refusals (the PTX, a kernel's launch).
std::unique_ptr<runtime::GraphExecutor> make_gpu_executor(const CompiledGraph& compiled,
                                                          const Target& target);
// The same graph and launches with every kernel run by the GPU simulator on
// the host (codegen/gpu_simulator.h): what a machine without a GPU checks a
// cuda build with. Its memory is the host's; it throws
// codegen::GpuSimulationError from run() for a kernel a GPU could not run.
std::unique_ptr<runtime::GraphExecutor> make_simulated_gpu_executor(const CompiledGraph& compiled,
                                                                    const Target& target);
// "cuda:0 (NVIDIA H100 80GB HBM3 (sm_90))"; "host" for the host.
std::string device_description(runtime::Device device);

// Builds the module and writes the cuda package to `path`; returns the module
// (its PTX and launches, and the LLVM time).
GpuModule export_gpu_package(const CompiledGraph& compiled, const Target& target,
                             const std::string& path);

}  // namespace lathe::driver
