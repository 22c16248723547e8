// Private to core/codegen: the NVPTX code generator (cuda kind). Each PrimFunc
// becomes one kernel `f(ptr A, ptr B, ...)` with the ptx_kernel calling
// convention; thread-bound loops read %tid / %ctaid; `shared` allocations are
// addrspace(3) globals; barriers are bar.sync 0; exp, tanh, erf and sigmoid
// are Lathe's own polynomials (LLVM 19's NVPTX has no libcall for them).
#pragma once

#include "codegen/gpu_launch.h"
#include "codegen/llvm_codegen.h"

namespace lathe::codegen::detail {

class CodeGenNVPTX : public CodeGenLLVM {
 public:
  using CodeGenLLVM::CodeGenLLVM;
  void add_function(const tir::PrimFunc& func) override;

 protected:
  // What a GPU kernel's code does on the device, which the GPU simulator
  // (codegen_gpu_simulation.h) does on the host instead.
  // Declares the kernel for `func`, binds its buffer parameters and leaves
  // the builder at the start of its entry block.
  virtual llvm::Function* declare_kernel(const tir::PrimFunc& func);
  // %tid.x, %ctaid.y ... for a thread tag "threadIdx.x", "blockIdx.y" ...
  virtual llvm::Value* read_thread_index(const std::string& tag);
  // shfl.sync.bfly of a 32-bit integer among the lanes of `lane_mask`.
  virtual llvm::Value* shuffle_xor_i32(llvm::Value* x, unsigned lane_mask, unsigned offset);
  // The address of a block-wide array of `type` in shared memory.
  virtual llvm::Value* shared_array(llvm::Type* type, const std::string& name, int64_t alignment);
  void emit_barrier() override;

  const GpuLaunch& launch() const { return launch_; }

 private:
  void emit_parallel_loop(const tir::ForNode* n) override;
  void emit_thread_binding(const tir::ForNode* n) override;
  void emit_allocate(const tir::AllocateNode* n) override;
  void emit_thread_allreduce(const tir::AttrStmtNode* n) override;
  llvm::Value* emit_prefetch(const te::CallNode* n) override;
  llvm::Value* emit_tensor_intrinsic(const te::CallNode* n) override;
  llvm::Value* emit_libm_per_lane(const char* float_name, const char* double_name,
                                  llvm::Value* x) override;
  llvm::Value* emit_target_math(te::Intrinsic op, te::DataType t,
                                const std::vector<llvm::Value*>& args) override;

  // One shuffle of any 32- or 64-bit value (64 bits as two halves).
  llvm::Value* shuffle_xor(llvm::Value* v, unsigned lane_mask, unsigned offset);
  // This thread's index in the block, x fastest (as warps are formed).
  llvm::Value* linear_thread_index();
  // A `count`-element array of `type` in shared memory, for one kernel.
  llvm::Value* shared_scratch(llvm::Type* type, int64_t count);

  GpuLaunch launch_;  // of the kernel being emitted
  // The thread-bound loops around the statement being emitted: their tag,
  // extent and whether some threads of the launch skip the body.
  struct BoundLoop {
    te::Var var;
    std::string tag;
    int64_t extent;
    bool guarded;
  };
  std::vector<BoundLoop> bound_loops_;
  int allreduce_count_ = 0;  // names the shared scratch of each
};

}  // namespace lathe::codegen::detail
