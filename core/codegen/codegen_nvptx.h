// Private to core/codegen: the NVPTX code generator (cuda kind). Each PrimFunc
// becomes one kernel `f(ptr A, ptr B, ...)` with the ptx_kernel calling
// convention; thread-bound loops read %tid / %ctaid; `shared` allocations are
// addrspace(3) globals; barriers are bar.sync 0; exp, tanh, erf and sigmoid
// are Lathe's own polynomials (LLVM 19's NVPTX has no libcall for them).
#pragma once

#include "codegen/gpu_launch.h"
#include "codegen/llvm_codegen.h"

namespace lathe::codegen::detail {

class CodeGenNVPTX final : public CodeGenLLVM {
 public:
  using CodeGenLLVM::CodeGenLLVM;
  void add_function(const tir::PrimFunc& func) override;

 private:
  void emit_parallel_loop(const tir::ForNode* n) override;
  void emit_thread_binding(const tir::ForNode* n) override;
  void emit_allocate(const tir::AllocateNode* n) override;
  void emit_barrier() override;
  void emit_thread_allreduce(const tir::AttrStmtNode* n) override;
  llvm::Value* emit_prefetch(const te::CallNode* n) override;
  llvm::Value* emit_tensor_intrinsic(const te::CallNode* n) override;
  llvm::Value* emit_libm_per_lane(const char* float_name, const char* double_name,
                                  llvm::Value* x) override;
  llvm::Value* emit_target_math(te::Intrinsic op, te::DataType t,
                                const std::vector<llvm::Value*>& args) override;

  // %tid.x, %ctaid.y ... for a thread tag "threadIdx.x", "blockIdx.y" ...
  llvm::Value* read_thread_index(const std::string& tag);

  // One 32-bit shuffle (shfl.sync.bfly) of any 32- or 64-bit value.
  llvm::Value* shuffle_xor(llvm::Value* v, unsigned lane_mask, unsigned offset);
  // This thread's index in the block, x fastest (as warps are formed).
  llvm::Value* linear_thread_index();
  // A `count`-element array of `type` in shared memory, for one kernel.
  llvm::GlobalVariable* shared_scratch(llvm::Type* type, int64_t count);

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
