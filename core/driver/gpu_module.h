// A compiled graph for a GPU target as PTX: every kernel of the graph in one
// PTX module, with the launch each one needs (grid, block, shared memory).
// The CUDA package that carries it beside mod.json and mod.params, and the
// runtime that loads it, are planned (docs/ARCHITECTURE.md, "Targets").
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu_launch.h"
#include "driver/graph_compiler.h"

namespace lathe::driver {

using GpuLaunch = codegen::GpuLaunch;

struct GpuModule {
  std::string ptx;                  // one module, a .entry per kernel
  std::vector<GpuLaunch> launches;  // launches[i] is compiled.funcs[i]'s
  double llvm_ms = 0;               // verification and PTX emission
};

// Verifies every kernel for the target's device and emits the PTX. Throws
// lathe::Error for a target that is not a GPU and for a kernel the verifier
// refuses (naming it and the loop).
GpuModule build_gpu_module(const CompiledGraph& compiled, const Target& target);

}  // namespace lathe::driver
