#include "codegen/codegen_gpu_simulation.h"

#include <llvm/IR/DerivedTypes.h>

#include "codegen/gpu_simulator_abi.h"
#include "support/error.h"

namespace lathe::codegen::detail {

CodeGenGpuSimulation::CodeGenGpuSimulation(llvm::Module& module, const Target& device,
                                           const Target& host,
                                           std::vector<SimulatedKernelInfo>& kernels)
    : CodeGenNVPTX(module, device, host.cpu(), host.features()), kernels_(kernels) {}

namespace {

// LatheGpuThread's fields.
constexpr unsigned kIndexField = 0, kSharedField = 1;

}  // namespace

void CodeGenGpuSimulation::add_function(const tir::PrimFunc& func) {
  synchronizes_ = false;
  shared_buffer_bytes_ = 0;
  CodeGenNVPTX::add_function(func);
  kernels_.push_back(
      {func.name, launch(), synchronizes_, shared_buffer_bytes_, func.params.size()});
}

llvm::Function* CodeGenGpuSimulation::declare_kernel(const tir::PrimFunc& func) {
  // void f(void** buffers, LatheGpuThread* thread)
  llvm::Type* ptr = builder_.getPtrTy();
  llvm::Function* kernel =
      create_function(func.name, llvm::FunctionType::get(builder_.getVoidTy(), {ptr, ptr}, false),
                      llvm::GlobalValue::ExternalLinkage);
  llvm::Argument* args = kernel->getArg(0);
  args->setName("buffers");
  thread_ = kernel->getArg(1);
  thread_->setName("thread");
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", kernel));
  shared_base_ = builder_.CreateLoad(
      ptr, builder_.CreateStructGEP(thread_type(), thread_, kSharedField), "shared");
  for (size_t i = 0; i < func.params.size(); ++i) {
    const tir::Buffer& buffer = func.params[i];
    if (values_.count(buffer.data)) fail_at(str("parameter '", buffer.name, "' is passed twice"));
    llvm::Value* slot = builder_.CreateConstInBoundsGEP1_64(ptr, args, i);
    llvm::Value* data =
        builder_.CreateLoad(ptr, slot, buffer.name.empty() ? buffer.data.name() : buffer.name);
    buffers_[buffer.data] = param_facts(func, i);
    values_[buffer.data] = data;
  }
  return kernel;
}

llvm::Value* CodeGenGpuSimulation::read_thread_index(const std::string& tag) {
  static const char* const kTags[6] = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                       "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};
  for (unsigned i = 0; i < 6; ++i)
    if (tag == kTags[i]) {
      llvm::Value* slot = builder_.CreateInBoundsGEP(
          thread_type(), thread_,
          {builder_.getInt32(0), builder_.getInt32(kIndexField), builder_.getInt32(i)});
      return builder_.CreateLoad(builder_.getInt32Ty(), slot, tag);
    }
  fail_at(str("unknown thread tag '", tag, "'"));
}

void CodeGenGpuSimulation::emit_barrier() {
  synchronizes_ = true;
  llvm::FunctionCallee barrier = module_.getOrInsertFunction(
      kGpuSimBarrierSymbol,
      llvm::FunctionType::get(builder_.getVoidTy(), {builder_.getPtrTy()}, false));
  builder_.CreateCall(barrier, {thread_});
}

llvm::Value* CodeGenGpuSimulation::shuffle_xor_i32(llvm::Value* x, unsigned lane_mask,
                                                   unsigned offset) {
  synchronizes_ = true;
  llvm::Type* i32 = builder_.getInt32Ty();
  llvm::FunctionCallee shuffle = module_.getOrInsertFunction(
      kGpuSimShuffleXorSymbol,
      llvm::FunctionType::get(i32, {builder_.getPtrTy(), i32, i32, i32}, false));
  return builder_.CreateCall(shuffle,
                             {thread_, x, builder_.getInt32(lane_mask), builder_.getInt32(offset)});
}

llvm::Value* CodeGenGpuSimulation::shared_array(llvm::Type* type, const std::string& name,
                                                int64_t alignment) {
  // An offset in the buffer thread->shared points to (operator new's 16-byte
  // alignment, the most a shared array asks). The barrier's call receives
  // the thread, so LLVM must assume it writes that buffer: no load of shared
  // data is kept across a barrier, as none may be on a GPU.
  const int64_t bytes = int64_t(module_.getDataLayout().getTypeAllocSize(type));
  const int64_t offset = (shared_buffer_bytes_ + alignment - 1) / alignment * alignment;
  shared_buffer_bytes_ = offset + bytes;
  return builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), shared_base_, uint64_t(offset),
                                             name);
}

llvm::StructType* CodeGenGpuSimulation::thread_type() {
  // LatheGpuThread: {int32_t index[6]; void* shared;}
  return llvm::StructType::get(
      ctx_, {llvm::ArrayType::get(builder_.getInt32Ty(), 6), builder_.getPtrTy()});
}

}  // namespace lathe::codegen::detail
