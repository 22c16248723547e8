// The NVPTX code generator (codegen_nvptx.h), after TVM's codegen_nvptx.cc:
// a kernel per PrimFunc, thread indices from PTX special registers, shared
// memory in address space 3, barriers, launch bounds, and math that needs no
// libm.
#include "codegen/codegen_nvptx.h"

#include <llvm/IR/CallingConv.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Metadata.h>

#include "support/error.h"

namespace lathe::codegen::detail {

using te::DataType;
using te::Expr;

namespace {

constexpr unsigned kSharedAddressSpace = 3;
// The widest access a thread makes (ld.shared.v4.f32): shared buffers are
// aligned to it.
constexpr int64_t kSharedAlignment = 16;

}  // namespace

void CodeGenNVPTX::add_function(const tir::PrimFunc& func) {
  begin_kernel(func);
  launch_ = verify_gpu_func(func, target_);

  // The buffers themselves are the parameters (a launch passes each pointer
  // by value); device allocations are at least 256-byte aligned.
  std::vector<llvm::Type*> param_types(func.params.size(), builder_.getPtrTy());
  llvm::Function* kernel =
      create_function(func.name, llvm::FunctionType::get(builder_.getVoidTy(), param_types, false),
                      llvm::GlobalValue::ExternalLinkage);
  kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);
  for (size_t i = 0; i < func.params.size(); ++i) {
    const tir::Buffer& buffer = func.params[i];
    const BufferFacts facts = param_facts(func, i);
    if (values_.count(buffer.data)) fail_at(str("parameter '", buffer.name, "' is passed twice"));
    add_buffer_param_attributes(kernel, unsigned(i), facts);
    llvm::Argument* arg = kernel->getArg(unsigned(i));
    arg->setName(buffer.name.empty() ? buffer.data.name() : buffer.name);
    buffers_[buffer.data] = facts;
    values_[buffer.data] = arg;
  }

  // Launch bounds: .maxntid, so that ptxas budgets registers for exactly the
  // block the lowering launches.
  llvm::NamedMDNode* annotations = module_.getOrInsertNamedMetadata("nvvm.annotations");
  const char* keys[3] = {"maxntidx", "maxntidy", "maxntidz"};
  for (int d = 0; d < 3; ++d)
    annotations->addOperand(llvm::MDNode::get(
        ctx_, {llvm::ValueAsMetadata::get(kernel), llvm::MDString::get(ctx_, keys[d]),
               llvm::ConstantAsMetadata::get(builder_.getInt32(uint32_t(launch_.block[d])))}));

  function_ = kernel;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", kernel));
  emit_stmt(func.body);
  builder_.CreateRetVoid();
  function_ = nullptr;
}

llvm::Value* CodeGenNVPTX::read_thread_index(const std::string& tag) {
  static const std::pair<const char*, llvm::Intrinsic::ID> kRegisters[] = {
      {"threadIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x},
      {"threadIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y},
      {"threadIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z},
      {"blockIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x},
      {"blockIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y},
      {"blockIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
  };
  for (const auto& [name, id] : kRegisters)
    if (tag == name) return builder_.CreateIntrinsic(id, {}, {}, nullptr, tag);
  fail_at(str("unknown thread tag '", tag, "'"));
}

void CodeGenNVPTX::emit_thread_binding(const tir::ForNode* n) {
  // The loop is the launch: its variable is this thread's (or block's) index
  // plus the loop's minimum. The verifier made the extent a constant; where
  // it is below the launch's extent for the tag (another loop bound to the
  // same tag is longer), the extra threads skip the body.
  const DataType t = n->loop_var.type();
  const int64_t extent = *te::as_const_int(n->extent);
  const bool is_block = n->thread_tag.rfind("blockIdx.", 0) == 0;
  const int dim = n->thread_tag.back() - 'x';
  const int64_t launched = is_block ? launch_.grid[dim] : launch_.block[dim];
  llvm::Value* index = read_thread_index(n->thread_tag);
  llvm::Value* guard = nullptr;
  if (extent < launched) guard = builder_.CreateICmpULT(index, builder_.getInt32(uint32_t(extent)));
  index = builder_.CreateIntCast(index, llvm_type(t), false);
  llvm::Value* value = builder_.CreateAdd(cast_value(emit_expr(n->min), n->min.type(), t), index,
                                          n->loop_var.name(), false, t.is_int());
  llvm::BasicBlock* end_bb = nullptr;
  if (guard) {
    llvm::BasicBlock* body_bb =
        llvm::BasicBlock::Create(ctx_, "bound." + n->loop_var.name(), function_);
    end_bb = llvm::BasicBlock::Create(ctx_, "bound_end." + n->loop_var.name(), function_);
    builder_.CreateCondBr(guard, body_bb, end_bb);
    builder_.SetInsertPoint(body_bb);
  }
  if (non_negative(n->min)) non_negative_vars_[n->loop_var] = true;
  llvm::Value* shadowed = bind(n->loop_var, value, Expr());
  emit_stmt(n->body);
  unbind(n->loop_var, shadowed);
  if (end_bb) {
    builder_.CreateBr(end_bb);
    builder_.SetInsertPoint(end_bb);
  }
}

void CodeGenNVPTX::emit_parallel_loop(const tir::ForNode* n) {
  fail_at(str("loop '", n->loop_var.name(),
              "' is parallel; on a GPU bind it to blockIdx/threadIdx instead"));
}

void CodeGenNVPTX::emit_allocate(const tir::AllocateNode* n) {
  const int64_t count = constant_allocation_count(n);
  const int64_t bytes = count * memory_bytes(n->dtype);
  if (count < 0)
    fail_at(str("buffer '", n->buffer.name(), "' (scope ", n->storage_scope,
                ") has a size that is not a constant; GPU allocations are sized at compile time"));
  if (n->storage_scope != "shared") {
    // local (and a per-thread scratch of global scope): an alloca, which
    // NVPTX keeps in registers or places in .local itself.
    emit_stack_allocate(n, bytes);
    return;
  }
  // One block-wide array per allocation, as TVM: a module-level global in the
  // shared address space, uninitialised (shared memory cannot be).
  llvm::Type* type =
      llvm::ArrayType::get(builder_.getInt8Ty(), uint64_t(std::max<int64_t>(bytes, 1)));
  auto* global = new llvm::GlobalVariable(
      module_, type, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(type),
      str(kernel_name_, "_", n->buffer.name(), "_shared"), nullptr,
      llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
  global->setAlignment(llvm::Align(kSharedAlignment));
  BufferFacts facts;
  facts.alignment = kSharedAlignment;
  facts.noalias = true;
  facts.dereferenceable = bytes;
  buffers_[n->buffer] = facts;
  llvm::Value* shadowed = bind(n->buffer, global, Expr());
  emit_stmt(n->body);
  unbind(n->buffer, shadowed);
}

void CodeGenNVPTX::emit_barrier() {
  builder_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
}

llvm::Value* CodeGenNVPTX::emit_tensor_intrinsic(const te::CallNode*) {
  fail_at(
      "tensorize: the declared tensor intrinsics are x86's int8 dot products; the cuda target "
      "implements none of them");
}

llvm::Value* CodeGenNVPTX::emit_prefetch(const te::CallNode*) {
  fail_at(
      "prefetch is a CPU schedule primitive; on a GPU stage the data through shared memory "
      "(cache_read(..., \"shared\")) instead");
}

llvm::Value* CodeGenNVPTX::emit_libm_per_lane(const char* float_name, const char*, llvm::Value*) {
  fail_at(str(float_name,
              " is not available on cuda: LLVM's NVPTX back end has no libm, and Lathe's own "
              "polynomials cover exp, log, pow, tanh, erf, sigmoid, sin and cos"));
}

llvm::Value* CodeGenNVPTX::emit_target_math(te::Intrinsic op, DataType t,
                                            const std::vector<llvm::Value*>& args) {
  switch (op) {
    case te::Intrinsic::Exp:
    case te::Intrinsic::Log:
    case te::Intrinsic::Pow:
    case te::Intrinsic::Tanh:
    case te::Intrinsic::Erf:
    case te::Intrinsic::Sigmoid:
    case te::Intrinsic::Sin:
    case te::Intrinsic::Cos:
      break;
    default:
      return nullptr;  // instructions NVPTX has (sqrt, fma, floor ...) or libm names
  }
  if (llvm::Value* r = emit_polynomial_math(builder_, op, args)) return r;
  fail_at(str(te::intrinsic_name(op), " of ", t.to_string(),
              " is not available on cuda: LLVM's NVPTX back end has no libm, and Lathe's own "
              "polynomials cover float32 exp, log, pow, tanh, erf, sigmoid, sin and cos"));
}

}  // namespace lathe::codegen::detail
