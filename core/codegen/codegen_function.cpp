// What every target kind's functions share: creating a function with the
// target's CPU and features, parameter attributes from what is known of a
// buffer, entry-block allocas, and the start of a kernel.
#include <llvm/IR/Attributes.h>

#include <utility>

#include "codegen/llvm_codegen.h"
#include "runtime/thread_pool.h"
#include "support/error.h"

namespace lathe::codegen::detail {

CodeGenLLVM::CodeGenLLVM(llvm::Module& module, const Target& target)
    : CodeGenLLVM(module, target, target.cpu(), target.features()) {}

CodeGenLLVM::CodeGenLLVM(llvm::Module& module, const Target& target, std::string cpu,
                         std::string features)
    : ctx_(module.getContext()),
      module_(module),
      target_(target),
      cpu_(std::move(cpu)),
      features_(std::move(features)),
      builder_(ctx_) {
  if (target_.fast_math) builder_.setFastMathFlags(llvm::FastMathFlags::getFast());
}

llvm::Function* CodeGenLLVM::create_function(const std::string& name, llvm::FunctionType* type,
                                             llvm::GlobalValue::LinkageTypes linkage) {
  llvm::Function* f = llvm::Function::Create(type, linkage, name, module_);
  f->addFnAttr("target-cpu", cpu_);
  if (!features_.empty()) f->addFnAttr("target-features", features_);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  if (target_.fast_math) {
    for (const char* key : {"unsafe-fp-math", "no-infs-fp-math", "no-nans-fp-math",
                            "no-signed-zeros-fp-math", "approx-func-fp-math"})
      f->addFnAttr(key, "true");
  }
  return f;
}

void CodeGenLLVM::add_buffer_param_attributes(llvm::Function* f, unsigned index,
                                              const BufferFacts& facts) {
  if (facts.noalias) f->addParamAttr(index, llvm::Attribute::NoAlias);
  if (facts.alignment > 1)
    f->addParamAttr(index, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(facts.alignment)));
  if (facts.dereferenceable > 0)
    f->addDereferenceableParamAttr(index, static_cast<uint64_t>(facts.dereferenceable));
}

llvm::AllocaInst* CodeGenLLVM::entry_alloca(llvm::Type* type, int64_t alignment,
                                            const std::string& name) {
  // In the entry block, so that loops do not grow the stack and SROA/mem2reg
  // can promote small scalars to registers.
  llvm::BasicBlock& entry = function_->getEntryBlock();
  llvm::IRBuilder<> at_entry(&entry, entry.getFirstInsertionPt());
  llvm::AllocaInst* slot = at_entry.CreateAlloca(type, nullptr, name);
  slot->setAlignment(llvm::Align(alignment));
  return slot;
}

void CodeGenLLVM::begin_kernel(const tir::PrimFunc& func) {
  kernel_name_ = func.name;
  if (func.name.empty()) fail("codegen llvm: a kernel has no name");
  if (module_.getFunction(func.name)) fail_at("two kernels of one module share this name");
  if (!func.body.defined()) fail_at("the kernel has no body");
  if (!func.target.empty() && tir::target_kind_name(func.target) != target_kind_name(target_.kind))
    fail_at(str("lowered for '", func.target, "', built for '", target_.to_string(),
                "': a module holds kernels of one target kind"));
  values_.clear();
  lane_mask_ = nullptr;
}

BufferFacts CodeGenLLVM::param_facts(const tir::PrimFunc& func, size_t i) const {
  const tir::Buffer& buffer = func.params[i];
  if (!buffer.data.defined() || !buffer.data.type().is_handle())
    fail_at(str("parameter ", i, " ('", buffer.name, "') has no handle data variable"));
  BufferFacts facts;
  facts.alignment = runtime::kTensorAlignment;
  facts.noalias = true;
  int64_t numel = 1;
  for (int64_t d : buffer.shape) numel *= d;
  facts.dereferenceable = numel * memory_bytes(buffer.dtype);
  return facts;
}

llvm::Value* CodeGenLLVM::emit_target_math(te::Intrinsic, te::DataType,
                                           const std::vector<llvm::Value*>&) {
  return nullptr;
}

llvm::Value* CodeGenLLVM::emit_round_to_int(const te::Expr&, te::DataType) {
  return nullptr;
}

llvm::Value* CodeGenLLVM::emit_saturating_narrow(const te::Expr&, te::DataType) {
  return nullptr;
}

}  // namespace lathe::codegen::detail
