// Private to core/codegen: a cuda kernel compiled for the host, for the GPU
// simulator (gpu_simulator.h). The same TIR and the same NVPTX code generator
// (thread bindings, guards, shared arrays, cross-thread reductions, the
// polynomial math); only what the device itself does becomes host code:
// the thread's indices are read from a LatheGpuThread, bar.sync and
// shfl.sync are calls into the simulator (gpu_simulator_abi.h), and shared
// memory is the block's buffer that the simulator passes in the same struct,
// each shared array at a fixed offset in it.
#pragma once

#include <string>
#include <vector>

#include "codegen/codegen_nvptx.h"
#include "codegen/gpu_simulator.h"

namespace lathe::codegen::detail {

class CodeGenGpuSimulation final : public CodeGenNVPTX {
 public:
  // `device` is the cuda target the kernels were lowered for (its limits
  // are verified as for the GPU); the code is for the `host` CPU. Each
  // kernel added appends what running it needs to `kernels`.
  CodeGenGpuSimulation(llvm::Module& module, const Target& device, const Target& host,
                       std::vector<SimulatedKernelInfo>& kernels);
  void add_function(const tir::PrimFunc& func) override;

 private:
  llvm::Function* declare_kernel(const tir::PrimFunc& func) override;
  llvm::Value* read_thread_index(const std::string& tag) override;
  llvm::Value* shuffle_xor_i32(llvm::Value* x, unsigned lane_mask, unsigned offset) override;
  llvm::Value* shared_array(llvm::Type* type, const std::string& name, int64_t alignment) override;
  void emit_barrier() override;
  llvm::StructType* thread_type();

  llvm::Value* thread_ = nullptr;       // the kernel's LatheGpuThread*
  llvm::Value* shared_base_ = nullptr;  // thread_->shared, loaded at the entry
  bool synchronizes_ = false;
  int64_t shared_buffer_bytes_ = 0;  // of the kernel being emitted
  std::vector<SimulatedKernelInfo>& kernels_;
};

}  // namespace lathe::codegen::detail
