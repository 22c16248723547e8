// The GPU simulator: a cuda build's kernels run on the host CPU, so that a
// machine without a GPU checks what they compute. Each kernel is the TIR the
// PTX is made from, verified for the same device and translated by the same
// NVPTX code generator, with the device's own acts (thread indices, bar.sync,
// shfl.sync, shared memory) done on the host (codegen_gpu_simulation.h).
// A block's threads are fibers on one host thread that switch only at
// barriers and warp shuffles, so barriers are as strict as the hardware's: a
// thread reads another's shared data only after a barrier orders them, and a
// barrier or shuffle that some threads never reach is reported, not hung on.
// What it does not model: timing, memory coalescing, bank conflicts, the
// device's float rounding of fused operations (the host's LLVM decides).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/gpu_launch.h"
#include "codegen/target.h"
#include "support/error.h"
#include "tir/stmt.h"

namespace lathe::codegen {

// A kernel did what would hang or give undefined results on a GPU: a
// barrier that not every thread of its block reaches, a warp shuffle whose
// lanes do not all take part. The message names the kernel, the block and
// the threads.
class GpuSimulationError : public Error {
 public:
  using Error::Error;
};

// What running a simulated kernel needs besides its code.
struct SimulatedKernelInfo {
  std::string name;
  GpuLaunch launch;
  bool synchronizes = false;  // has a barrier or a warp shuffle: its threads run as fibers
  // The simulator's shared buffer for a block: the shared arrays at their
  // aligned offsets (launch.shared_bytes is what a GPU block reserves).
  int64_t shared_buffer_bytes = 0;
  size_t num_params = 0;
};

// Simulated kernels as a host relocatable object, for another process to run
// (the measurement worker, where a kernel that writes out of bounds ends only
// that process). The object resolves the simulator's entry points
// (gpu_simulator_abi.h) from the process that loads it.
struct SimulatedGpuObject {
  std::vector<char> object;
  std::vector<SimulatedKernelInfo> kernels;
};

// Verifies every kernel for the cuda `target` as the PTX build does and
// compiles it for the host. Throws lathe::Error (GpuVerifyError for what the
// device cannot run) naming the kernel.
SimulatedGpuObject emit_simulated_gpu_object(const std::vector<tir::PrimFunc>& funcs,
                                             const Target& target);

class SimulatedGpuModule {
 public:
  // Compiles as emit_simulated_gpu_object does, into this process.
  SimulatedGpuModule(const std::vector<tir::PrimFunc>& funcs, const Target& target);
  // Loads an object emit_simulated_gpu_object made. Throws lathe::Error for
  // bytes that are not one or lack a kernel.
  explicit SimulatedGpuModule(const SimulatedGpuObject& object);

  bool has_kernel(const std::string& name) const;
  const GpuLaunch& launch(const std::string& name) const;  // throws for an unknown name

  // Runs kernel `name` over its whole grid with the buffers a launch passes
  // (inputs, then outputs), returning when it is done. Blocks run on the
  // runtime's thread pool, each host thread with its own shared memory.
  // Throws GpuSimulationError for a kernel a GPU could not run, lathe::Error
  // for a wrong buffer count.
  void run(const std::string& name, void* const* buffers, size_t count) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace lathe::codegen
