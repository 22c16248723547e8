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

#include <optional>

#include "codegen/gpu_math.h"
#include "support/error.h"
#include "te/tensor.h"
#include "tir/transform/thread_allreduce.h"

namespace lathe::codegen::detail {

using te::DataType;
using te::Expr;

namespace {

constexpr unsigned kSharedAddressSpace = 3;
// The widest access a thread makes (ld.shared.v4.f32): shared buffers are
// aligned to it.
constexpr int64_t kSharedAlignment = 16;

// Why a math function `what` names cannot be compiled for cuda.
std::string math_unavailable(const std::string& what) {
  return str(what,
             " is not available on cuda: LLVM's NVPTX back end has no libm, and Lathe's own "
             "polynomials cover ",
             polynomial_math_coverage());
}

}  // namespace

void CodeGenNVPTX::add_function(const tir::PrimFunc& func) {
  begin_kernel(func);
  launch_ = verify_gpu_func(func, target_);
  function_ = declare_kernel(func);
  emit_stmt(func.body);
  builder_.CreateRetVoid();
  function_ = nullptr;
}

llvm::Function* CodeGenNVPTX::declare_kernel(const tir::PrimFunc& func) {
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
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", kernel));
  return kernel;
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
  bound_loops_.push_back({n->loop_var, n->thread_tag, extent, guard != nullptr});
  emit_stmt(n->body);
  bound_loops_.pop_back();
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
  llvm::Value* global = shared_array(
      llvm::ArrayType::get(builder_.getInt8Ty(), uint64_t(std::max<int64_t>(bytes, 1))),
      str(kernel_name_, "_", n->buffer.name(), "_shared"), kSharedAlignment);
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

llvm::Value* CodeGenNVPTX::shared_array(llvm::Type* type, const std::string& name,
                                        int64_t alignment) {
  auto* global = new llvm::GlobalVariable(module_, type, false, llvm::GlobalValue::InternalLinkage,
                                          llvm::UndefValue::get(type), name, nullptr,
                                          llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
  global->setAlignment(llvm::Align(alignment));
  return global;
}

llvm::Value* CodeGenNVPTX::shuffle_xor_i32(llvm::Value* x, unsigned lane_mask, unsigned offset) {
  return builder_.CreateIntrinsic(
      llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, {},
      {builder_.getInt32(lane_mask), x, builder_.getInt32(offset), builder_.getInt32(0x1f)});
}

llvm::Value* CodeGenNVPTX::shuffle_xor(llvm::Value* v, unsigned lane_mask, unsigned offset) {
  llvm::Type* type = v->getType();
  auto shuffle32 = [&](llvm::Value* x) {
    if (x->getType()->isIntegerTy(32)) return shuffle_xor_i32(x, lane_mask, offset);
    return builder_.CreateBitCast(
        shuffle_xor_i32(builder_.CreateBitCast(x, builder_.getInt32Ty()), lane_mask, offset),
        x->getType());
  };
  if (type->isFloatTy() || type->isIntegerTy(32)) return shuffle32(v);
  // 64 bits: the two halves, as CUDA's __shfl_xor_sync of a double.
  llvm::Type* halves = llvm::FixedVectorType::get(builder_.getInt32Ty(), 2);
  llvm::Value* pair = builder_.CreateBitCast(v, halves);
  llvm::Value* lo = shuffle32(builder_.CreateExtractElement(pair, uint64_t(0)));
  llvm::Value* hi = shuffle32(builder_.CreateExtractElement(pair, uint64_t(1)));
  pair = builder_.CreateInsertElement(pair, lo, uint64_t(0));
  pair = builder_.CreateInsertElement(pair, hi, uint64_t(1));
  return builder_.CreateBitCast(pair, type);
}

llvm::Value* CodeGenNVPTX::linear_thread_index() {
  llvm::Value* linear = read_thread_index("threadIdx.x");
  if (launch_.block[1] == 1 && launch_.block[2] == 1) return linear;
  llvm::Value* y = read_thread_index("threadIdx.y");
  llvm::Value* z = read_thread_index("threadIdx.z");
  llvm::Value* yz =
      builder_.CreateAdd(y, builder_.CreateMul(z, builder_.getInt32(uint32_t(launch_.block[1]))));
  return builder_.CreateAdd(linear,
                            builder_.CreateMul(yz, builder_.getInt32(uint32_t(launch_.block[0]))));
}

llvm::Value* CodeGenNVPTX::shared_scratch(llvm::Type* type, int64_t count) {
  return shared_array(llvm::ArrayType::get(type, uint64_t(count)),
                      str(kernel_name_, "_allreduce", allreduce_count_++, "_shared"), 8);
}

void CodeGenNVPTX::emit_thread_allreduce(const tir::AttrStmtNode* n) {
  // tir/transform/thread_allreduce.h: store the combination, over the
  // threads that differ only in the bound reduce loop's index, of the
  // store's value; every one of them gets it.
  const auto* store = n->body.as<tir::StoreNode>();
  const std::string reducer_name = n->key.substr(std::string(tir::kThreadAllReduceAttr).size());
  std::optional<te::Reducer> reducer;
  for (te::Reducer r : {te::Reducer::Sum, te::Reducer::Max, te::Reducer::Min, te::Reducer::Prod})
    if (reducer_name == te::reducer_name(r)) reducer = r;
  if (!store || !reducer || !n->value.as<te::VarNode>())
    fail_at(str("attribute '", n->key,
                "' must name a reducer, hold the bound reduce loop's variable and wrap one store"));
  const DataType t = store->value.type();
  if (t.lanes != 1 || (t.bits != 32 && t.bits != 64))
    fail_at(str("a cross-thread reduction of ", t.to_string(),
                ": warp shuffles and the shared scratch move 32- and 64-bit scalars"));
  const te::Var reduce_var(n->value);
  const BoundLoop* group = nullptr;
  for (const BoundLoop& loop : bound_loops_) {
    if (loop.guarded && loop.tag.rfind("threadIdx.", 0) == 0)
      fail_at(str("a cross-thread reduction inside the loop bound to ", loop.tag, " (extent ",
                  loop.extent, ", ", launch_.block[loop.tag.back() - 'x'],
                  " launched): every thread of the block must take part; give the loops bound "
                  "to ",
                  loop.tag, " one extent"));
    if (loop.var.same_as(reduce_var)) group = &loop;
  }
  if (!group)
    fail_at(str("a cross-thread reduction over '", reduce_var.name(),
                "', which no enclosing loop binds to a thread index"));
  const int64_t width = group->extent;

  // Combines two values as the reducer does (te::reducer_combine).
  const te::Var lhs("allreduce_lhs", t), rhs("allreduce_rhs", t);
  const Expr combine = te::reducer_combine(*reducer, lhs, rhs);
  auto combine_values = [&](llvm::Value* a, llvm::Value* b) {
    llvm::Value* shadow_a = bind(lhs, a, Expr());
    llvm::Value* shadow_b = bind(rhs, b, Expr());
    llvm::Value* c = emit_expr(combine);
    unbind(rhs, shadow_b);
    unbind(lhs, shadow_a);
    return c;
  };
  llvm::Type* elem = llvm_type(t);
  auto scratch_at = [&](llvm::Value* scratch, llvm::Value* index) {
    return builder_.CreateInBoundsGEP(elem, scratch, {index});
  };
  llvm::Value* v = emit_expr(store->value);
  const int64_t threads = launch_.threads_per_block();

  const bool power_of_two = (width & (width - 1)) == 0;
  if (group->tag == "threadIdx.y" || !power_of_two) {
    // Threads that differ in y are (past a few) in different warps, and a
    // group of x threads that is not a power of two does not line up with
    // the butterfly's lanes: every thread leaves its value in shared
    // memory, and after a barrier combines its group's values in order
    // (all get the same); a second barrier lets the scratch be written again.
    llvm::Value* scratch = shared_scratch(elem, threads);
    llvm::Value* linear = linear_thread_index();
    builder_.CreateStore(v, scratch_at(scratch, linear));
    emit_barrier();
    const bool over_y = group->tag == "threadIdx.y";
    const int64_t stride = over_y ? launch_.block[0] : 1;
    // The group's first: this thread's index less its own steps.
    llvm::Value* first = builder_.CreateSub(
        linear,
        builder_.CreateMul(read_thread_index(group->tag), builder_.getInt32(uint32_t(stride))));
    auto value_at = [&](llvm::Value* step) {
      llvm::Value* index =
          builder_.CreateAdd(first, builder_.CreateMul(step, builder_.getInt32(uint32_t(stride))));
      return builder_.CreateLoad(elem, scratch_at(scratch, index));
    };
    v = value_at(builder_.getInt32(0));
    if (width <= 8) {
      for (int64_t step = 1; step < width; ++step)
        v = combine_values(v, value_at(builder_.getInt32(uint32_t(step))));
    } else {
      // A loop over the rest: a group may have up to 1024 threads.
      llvm::BasicBlock* before = builder_.GetInsertBlock();
      llvm::BasicBlock* loop_bb = llvm::BasicBlock::Create(ctx_, "allreduce.combine", function_);
      llvm::BasicBlock* done_bb = llvm::BasicBlock::Create(ctx_, "allreduce.combined", function_);
      builder_.CreateBr(loop_bb);
      builder_.SetInsertPoint(loop_bb);
      llvm::PHINode* step = builder_.CreatePHI(builder_.getInt32Ty(), 2);
      llvm::PHINode* acc = builder_.CreatePHI(elem, 2);
      step->addIncoming(builder_.getInt32(1), before);
      acc->addIncoming(v, before);
      llvm::Value* next_acc = combine_values(acc, value_at(step));
      llvm::Value* next_step = builder_.CreateAdd(step, builder_.getInt32(1));
      step->addIncoming(next_step, builder_.GetInsertBlock());
      acc->addIncoming(next_acc, builder_.GetInsertBlock());
      builder_.CreateCondBr(builder_.CreateICmpULT(next_step, builder_.getInt32(uint32_t(width))),
                            loop_bb, done_bb);
      builder_.SetInsertPoint(done_bb);
      v = next_acc;
    }
    emit_barrier();
  } else {
    if (width > 1024)
      fail_at(str("a cross-thread reduction over ", width, " threads: a block has at most 1024"));
    // Within a warp: a butterfly over the lanes of the group (all end with
    // the combination), lanes of a block smaller than a warp masked out.
    const unsigned lane_mask = threads >= 32 ? 0xffffffffu : (1u << threads) - 1u;
    for (int64_t offset = std::min<int64_t>(width, 32) / 2; offset >= 1; offset /= 2)
      v = combine_values(v, shuffle_xor(v, lane_mask, unsigned(offset)));
    if (width > 32) {
      // Across warps: lane 0 of each warp leaves its combination in shared
      // memory; after a barrier every thread combines its group's warps (in
      // the same order, so all get the same value); a second barrier lets
      // the scratch be written again (a reduction in a serial loop).
      llvm::Value* scratch = shared_scratch(elem, threads / 32);
      llvm::Value* linear = linear_thread_index();
      llvm::Value* warp = builder_.CreateLShr(linear, 5);
      llvm::Value* lane = builder_.CreateAnd(linear, 31);
      llvm::BasicBlock* write_bb = llvm::BasicBlock::Create(ctx_, "allreduce.write", function_);
      llvm::BasicBlock* done_bb = llvm::BasicBlock::Create(ctx_, "allreduce.written", function_);
      builder_.CreateCondBr(builder_.CreateICmpEQ(lane, builder_.getInt32(0)), write_bb, done_bb);
      builder_.SetInsertPoint(write_bb);
      builder_.CreateStore(v, scratch_at(scratch, warp));
      builder_.CreateBr(done_bb);
      builder_.SetInsertPoint(done_bb);
      emit_barrier();
      llvm::Value* first =
          builder_.CreateSub(warp, builder_.CreateLShr(read_thread_index("threadIdx.x"), 5));
      auto warp_value = [&](int64_t j) {
        llvm::Value* index = builder_.CreateAdd(first, builder_.getInt32(uint32_t(j)));
        return builder_.CreateLoad(elem, scratch_at(scratch, index));
      };
      v = warp_value(0);
      for (int64_t j = 1; j < width / 32; ++j) v = combine_values(v, warp_value(j));
      emit_barrier();
    }
  }

  const te::Var result("allreduce_result", t);
  llvm::Value* shadowed = bind(result, v, Expr());
  emit_stmt(tir::make_store(store->buffer, result, store->index));
  unbind(result, shadowed);
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
  fail_at(math_unavailable(float_name));
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
    case te::Intrinsic::Tan:
    case te::Intrinsic::Asin:
    case te::Intrinsic::Acos:
    case te::Intrinsic::Atan:
    case te::Intrinsic::Sinh:
    case te::Intrinsic::Cosh:
    case te::Intrinsic::Asinh:
    case te::Intrinsic::Acosh:
    case te::Intrinsic::Atanh:
      break;
    default:
      return nullptr;  // instructions NVPTX has (sqrt, fma, floor ...)
  }
  if (llvm::Value* r = emit_polynomial_math(builder_, op, args)) return r;
  fail_at(math_unavailable(str(te::intrinsic_name(op), " of ", t.to_string())));
}

}  // namespace lathe::codegen::detail
