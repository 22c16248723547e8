// The CPU code generator (llvm kind): the packed entry point, the compute
// function with noalias/aligned buffer parameters, each parallel loop outlined
// into a body the runtime's thread pool calls chunk by chunk, scratch memory
// from lathe_alloc, libm calls and prefetches.
#include <llvm/IR/Attributes.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Metadata.h>

#include <unordered_set>

#include "codegen/llvm_codegen.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "te/expr_functor.h"
#include "tir/stmt_functor.h"

namespace lathe::codegen::detail {

using te::DataType;
using te::Expr;

namespace {

// Allocations up to this size live on the stack: every register tile and
// accumulator fits, and worker stacks (8 MiB) never come close.
constexpr int64_t kMaxStackAllocationBytes = 32 * 1024;

// Variables a statement reads, in order of first use (so that closures are
// laid out the same way on every run).
std::vector<te::Var> used_vars(const tir::Stmt& body) {
  std::vector<te::Var> order;
  std::unordered_set<const te::ExprNode*> seen;
  auto note = [&](const Expr& e) {
    te::visit_expr(e, [&](const Expr& x) {
      if (x.kind() == te::ExprKind::Var && seen.insert(x.get()).second) order.emplace_back(x);
    });
  };
  tir::visit_stmt(body, [&](const tir::Stmt& s) {
    switch (s.kind()) {
      case tir::StmtKind::For:
        note(s.as<tir::ForNode>()->min);
        note(s.as<tir::ForNode>()->extent);
        break;
      case tir::StmtKind::Store:
        note(s.as<tir::StoreNode>()->buffer);
        note(s.as<tir::StoreNode>()->value);
        note(s.as<tir::StoreNode>()->index);
        break;
      case tir::StmtKind::Allocate:
        for (const Expr& e : s.as<tir::AllocateNode>()->extents) note(e);
        break;
      case tir::StmtKind::IfThenElse:
        note(s.as<tir::IfThenElseNode>()->condition);
        break;
      case tir::StmtKind::LetStmt:
        note(s.as<tir::LetStmtNode>()->value);
        break;
      case tir::StmtKind::Evaluate:
        note(s.as<tir::EvaluateNode>()->value);
        break;
      default:
        break;  // AttrStmt values are never evaluated
    }
  });
  return order;
}

}  // namespace

llvm::FunctionCallee CodeGenCPU::runtime_function(const char* name) {
  llvm::Type* ptr = builder_.getPtrTy();
  llvm::Type* i64 = builder_.getInt64Ty();
  llvm::Type* void_type = builder_.getVoidTy();
  const std::string symbol = name;
  llvm::FunctionType* type = nullptr;
  if (symbol == kParallelForSymbol)
    type = llvm::FunctionType::get(void_type, {ptr, ptr, i64}, false);
  else if (symbol == kAllocSymbol)
    type = llvm::FunctionType::get(ptr, {i64}, false);
  else if (symbol == kFreeSymbol)
    type = llvm::FunctionType::get(void_type, {ptr}, false);
  else
    fail_at(str("unknown runtime function '", symbol, "'"));
  llvm::FunctionCallee callee = module_.getOrInsertFunction(symbol, type);
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    if (symbol == kAllocSymbol) {
      // A fresh, 64-byte aligned block that nothing else points into.
      f->addRetAttr(llvm::Attribute::NoAlias);
      f->addRetAttr(llvm::Attribute::NonNull);
      f->addRetAttr(
          llvm::Attribute::getWithAlignment(ctx_, llvm::Align(runtime::kTensorAlignment)));
    }
  }
  return callee;
}

void CodeGenCPU::add_function(const tir::PrimFunc& func) {
  begin_kernel(func);
  if (module_.getFunction(func.name + "_compute_"))
    fail_at("two kernels of one module share this name");
  parallel_count_ = 0;
  in_parallel_ = false;

  llvm::Type* ptr = builder_.getPtrTy();
  std::vector<llvm::Type*> param_types(func.params.size(), ptr);
  llvm::Function* compute = create_function(
      func.name + "_compute_", llvm::FunctionType::get(builder_.getVoidTy(), param_types, false),
      llvm::GlobalValue::InternalLinkage);
  // Kept out of line: inlining into the entry point would trade the parameter
  // attributes (noalias, align 64) for weaker metadata, to save one call.
  compute->addFnAttr(llvm::Attribute::NoInline);
  std::vector<int64_t> param_bytes;
  for (size_t i = 0; i < func.params.size(); ++i) {
    const tir::Buffer& buffer = func.params[i];
    const BufferFacts facts = param_facts(func, i);
    if (values_.count(buffer.data)) fail_at(str("parameter '", buffer.name, "' is passed twice"));
    param_bytes.push_back(facts.dereferenceable);
    add_buffer_param_attributes(compute, unsigned(i), facts);
    llvm::Argument* arg = compute->getArg(unsigned(i));
    arg->setName(buffer.name.empty() ? buffer.data.name() : buffer.name);
    buffers_[buffer.data] = facts;
    values_[buffer.data] = arg;
  }
  function_ = compute;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", compute));
  emit_stmt(func.body);
  builder_.CreateRetVoid();

  // The packed entry point: void name(void** args), one pointer per buffer.
  llvm::Function* entry =
      create_function(func.name, llvm::FunctionType::get(builder_.getVoidTy(), {ptr}, false),
                      llvm::GlobalValue::ExternalLinkage);
  entry->addParamAttr(0, llvm::Attribute::ReadOnly);
  entry->addParamAttr(0, llvm::Attribute::NoCapture);
  entry->getArg(0)->setName("args");
  function_ = entry;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
  std::vector<llvm::Value*> pointers;
  for (size_t i = 0; i < func.params.size(); ++i) {
    llvm::Value* slot = builder_.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), i);
    llvm::LoadInst* p = builder_.CreateAlignedLoad(ptr, slot, llvm::Align(8), func.params[i].name);
    auto i64_node = [&](int64_t v) {
      return llvm::MDNode::get(ctx_, llvm::ConstantAsMetadata::get(builder_.getInt64(v)));
    };
    p->setMetadata(llvm::LLVMContext::MD_align, i64_node(runtime::kTensorAlignment));
    if (param_bytes[i] > 0)
      p->setMetadata(llvm::LLVMContext::MD_dereferenceable, i64_node(param_bytes[i]));
    pointers.push_back(p);
  }
  builder_.CreateCall(compute, pointers);
  builder_.CreateRetVoid();
  function_ = nullptr;
}

void CodeGenCPU::emit_parallel_for(const tir::ForNode* n) {
  const DataType t = n->loop_var.type();
  llvm::Type* loop_type = llvm_type(t);
  llvm::Type* i64 = builder_.getInt64Ty();
  llvm::Type* ptr = builder_.getPtrTy();

  // The closure: the loop's start, then every variable in scope that the body reads.
  std::vector<te::Var> captured;
  for (te::Var& v : used_vars(n->body))
    if (!v.same_as(n->loop_var) && values_.count(v)) captured.push_back(std::move(v));
  llvm::Value* begin = cast_value(emit_expr(n->min), n->min.type(), t);
  llvm::Value* extent = cast_value(emit_expr(n->extent), n->extent.type(), DataType::Int(64));
  std::vector<llvm::Type*> field_types{loop_type};
  std::vector<llvm::Value*> field_values{begin};
  for (const te::Var& v : captured) {
    field_types.push_back(values_[v]->getType());
    field_values.push_back(values_[v]);
  }
  llvm::StructType* closure_type = llvm::StructType::get(ctx_, field_types);

  const std::string base = str(kernel_name_, "_parallel_", parallel_count_++);
  std::vector<llvm::Type*> compute_params{i64, i64};
  compute_params.insert(compute_params.end(), field_types.begin(), field_types.end());
  llvm::Function* compute = create_function(
      base + "_compute_", llvm::FunctionType::get(builder_.getVoidTy(), compute_params, false),
      llvm::GlobalValue::InternalLinkage);
  // Out of line for the same reason as the kernel's compute function: the
  // captured buffers keep their noalias/align attributes as parameters.
  compute->addFnAttr(llvm::Attribute::NoInline);
  for (size_t i = 0; i < captured.size(); ++i) {
    compute->getArg(unsigned(3 + i))->setName(captured[i].name());
    auto facts = buffers_.find(captured[i]);
    if (facts != buffers_.end() && values_[captured[i]]->getType()->isPointerTy())
      add_buffer_param_attributes(compute, unsigned(3 + i), facts->second);
  }
  llvm::Function* trampoline =
      create_function(base, llvm::FunctionType::get(builder_.getVoidTy(), {i64, i64, ptr}, false),
                      llvm::GlobalValue::InternalLinkage);

  // Launch: fill the closure on this function's stack and hand it to the runtime.
  llvm::AllocaInst* closure =
      entry_alloca(closure_type, module_.getDataLayout().getABITypeAlign(closure_type).value(),
                   base + ".closure");
  for (size_t i = 0; i < field_values.size(); ++i)
    builder_.CreateStore(field_values[i],
                         builder_.CreateStructGEP(closure_type, closure, unsigned(i)));
  builder_.CreateCall(runtime_function(kParallelForSymbol), {trampoline, closure, extent});

  const llvm::IRBuilderBase::InsertPoint saved_point = builder_.saveIP();
  llvm::Function* saved_function = function_;
  te::VarMap<llvm::Value*> saved_values = std::move(values_);
  const bool saved_in_parallel = in_parallel_;

  // Trampoline: unpack the closure, call the compute function on the chunk.
  function_ = trampoline;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", trampoline));
  std::vector<llvm::Value*> args{trampoline->getArg(0), trampoline->getArg(1)};
  for (size_t i = 0; i < field_types.size(); ++i)
    args.push_back(builder_.CreateLoad(
        field_types[i],
        builder_.CreateStructGEP(closure_type, trampoline->getArg(2), unsigned(i))));
  builder_.CreateCall(compute, args);
  builder_.CreateRetVoid();

  // Compute: the loop over [min + task_begin, min + task_end) with only the
  // captured variables in scope.
  function_ = compute;
  values_ = {};
  builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", compute));
  for (size_t i = 0; i < captured.size(); ++i)
    values_[captured[i]] = compute->getArg(unsigned(3 + i));
  llvm::Value* loop_min = compute->getArg(2);
  llvm::Value* chunk_begin = builder_.CreateAdd(
      loop_min, builder_.CreateIntCast(compute->getArg(0), loop_type, true), "", false, t.is_int());
  llvm::Value* chunk_end = builder_.CreateAdd(
      loop_min, builder_.CreateIntCast(compute->getArg(1), loop_type, true), "", false, t.is_int());
  in_parallel_ = true;
  if (non_negative(n->min)) non_negative_vars_[n->loop_var] = true;
  emit_serial_loop(n->loop_var, chunk_begin, chunk_end, n->body, nullptr);
  builder_.CreateRetVoid();

  in_parallel_ = saved_in_parallel;
  values_ = std::move(saved_values);
  function_ = saved_function;
  builder_.restoreIP(saved_point);
}

void CodeGenCPU::emit_parallel_loop(const tir::ForNode* n) {
  // Nested parallel loops run serially inside the outlined body.
  if (in_parallel_)
    emit_loop(n);
  else
    emit_parallel_for(n);
}

void CodeGenCPU::emit_thread_binding(const tir::ForNode* n) {
  fail_at(str("loop over '", n->loop_var.name(), "' is bound to GPU thread '", n->thread_tag,
              "'; the llvm target runs on the CPU, where loops can be parallel, vectorized or "
              "unrolled but not bound to threads (bind needs a GPU target, as 'cuda')"));
}

void CodeGenCPU::emit_thread_allreduce(const tir::AttrStmtNode*) {
  fail_at("a cross-thread reduction (a reduce loop bound to threadIdx.x) needs a GPU target");
}

void CodeGenCPU::emit_barrier() {
  fail_at("a GPU barrier (storage_sync) reached the CPU code generator");
}

void CodeGenCPU::emit_allocate(const tir::AllocateNode* n) {
  const int64_t element_bytes = memory_bytes(n->dtype);
  const int64_t count = constant_allocation_count(n);
  if (count >= 0 && count * element_bytes <= kMaxStackAllocationBytes) {
    emit_stack_allocate(n, count * element_bytes);
    return;
  }
  BufferFacts facts;
  facts.alignment = runtime::kTensorAlignment;
  facts.noalias = true;
  const std::string& name = n->buffer.name();
  llvm::Value* bytes = builder_.getInt64(element_bytes);
  for (const Expr& extent : n->extents)
    bytes = builder_.CreateMul(bytes, to_index(emit_expr(extent), extent.type()), "", false, true);
  llvm::Value* ptr = builder_.CreateCall(runtime_function(kAllocSymbol), {bytes}, name);
  if (count >= 0) facts.dereferenceable = count * element_bytes;
  buffers_[n->buffer] = facts;
  llvm::Value* shadowed = bind(n->buffer, ptr, Expr());
  emit_stmt(n->body);
  unbind(n->buffer, shadowed);
  builder_.CreateCall(runtime_function(kFreeSymbol), {ptr});
}

// llvm.lrint converts in the current rounding mode, which the runtime
// leaves at its default, round half to even: one vcvtps2dq for the
// roundeven and fptosi pair (LLVM does not fuse them itself).
llvm::Value* CodeGenCPU::emit_round_to_int(const te::Expr& x, te::DataType to) {
  const te::DataType from = x.type();
  if (!from.is_float() || from.bits != 32 || !to.is_int() || to.bits != 32 ||
      from.lanes != to.lanes)
    return nullptr;
  llvm::Value* v = emit_expr(x);
  return builder_.CreateIntrinsic(llvm::Intrinsic::lrint, {llvm_type(to), v->getType()}, {v});
}

llvm::Value* CodeGenCPU::emit_libm_per_lane(const char* float_name, const char* double_name,
                                            llvm::Value* x) {
  llvm::Type* type = x->getType();
  llvm::Type* element = type->getScalarType();
  const bool is_double = element->isDoubleTy();
  llvm::Type* call_type = is_double ? builder_.getDoubleTy() : builder_.getFloatTy();
  llvm::FunctionCallee fn = module_.getOrInsertFunction(
      is_double ? double_name : float_name, llvm::FunctionType::get(call_type, {call_type}, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    // As clang with -fno-math-errno: a pure function, free to hoist and CSE.
    f->setDoesNotThrow();
    f->setDoesNotAccessMemory();
    f->setWillReturn();
  }
  auto apply = [&](llvm::Value* s) -> llvm::Value* {
    llvm::Value* wide = element == call_type ? s : builder_.CreateFPExt(s, call_type);
    llvm::Value* r = builder_.CreateCall(fn, {wide});
    return element == call_type ? r : builder_.CreateFPTrunc(r, element);
  };
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(type);
  if (!vector) return apply(x);
  llvm::Value* out = llvm::PoisonValue::get(type);
  for (unsigned i = 0; i < vector->getNumElements(); ++i)
    out = builder_.CreateInsertElement(out, apply(builder_.CreateExtractElement(x, i)), i);
  return out;
}

// The cache line of a load's element, fetched for reading into L2 and L3
// (locality 2, prefetcht1 on x86), not L1 as TVM's prefetch (locality 3):
// what InjectPrefetch fetches is a whole iteration ahead, a conv's next weight
// block of 18 KB beside the current one and its inputs, which together
// overflow a 32 KB L1; fetched into L1 it evicts what the current iteration
// uses. ResNet-18's 7x7 conv with weights flushed: 211-222 GFLOPS with
// prefetcht0, 223-236 with prefetcht1, alternating runs.
llvm::Value* CodeGenCPU::emit_prefetch(const te::CallNode* n) {
  const auto* load = n->args[0].as<te::LoadNode>();
  if (!load || load->type.lanes != 1) fail_at("prefetch needs a scalar load of a flat buffer");
  llvm::Value* index = to_index(emit_expr(load->index), load->index.type());
  llvm::Value* ptr =
      builder_.CreateInBoundsGEP(memory_type(load->type), buffer_pointer(load->buffer), index);
  builder_.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr->getType()},
                           {ptr, builder_.getInt32(0), builder_.getInt32(2), builder_.getInt32(1)});
  return llvm::PoisonValue::get(llvm_type(n->type));
}

}  // namespace lathe::codegen::detail
