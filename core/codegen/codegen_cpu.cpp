// The functions of a compiled kernel: the packed entry point, the compute
// function with noalias/aligned buffer parameters, and each parallel loop
// outlined into a body the runtime's thread pool calls chunk by chunk.
#include <llvm/IR/Attributes.h>
#include <llvm/IR/Constants.h>
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

CodeGenLLVM::CodeGenLLVM(llvm::Module& module, const Target& target)
    : ctx_(module.getContext()),
      module_(module),
      target_(target),
      cpu_(target.cpu()),
      features_(target.features()),
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

llvm::FunctionCallee CodeGenLLVM::runtime_function(const char* name) {
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

void CodeGenLLVM::add_function(const tir::PrimFunc& func) {
  kernel_name_ = func.name;
  if (func.name.empty()) fail("codegen llvm: a kernel has no name");
  if (module_.getFunction(func.name) || module_.getFunction(func.name + "_compute_"))
    fail_at("two kernels of one module share this name");
  if (!func.body.defined()) fail_at("the kernel has no body");
  values_.clear();
  parallel_count_ = 0;
  in_parallel_ = false;
  lane_mask_ = nullptr;

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
    if (!buffer.data.defined() || !buffer.data.type().is_handle())
      fail_at(str("parameter ", i, " ('", buffer.name, "') has no handle data variable"));
    if (values_.count(buffer.data)) fail_at(str("parameter '", buffer.name, "' is passed twice"));
    BufferFacts facts;
    facts.alignment = runtime::kTensorAlignment;
    facts.noalias = true;
    int64_t numel = 1;
    for (int64_t d : buffer.shape) numel *= d;
    facts.dereferenceable = numel * memory_bytes(buffer.dtype);
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

void CodeGenLLVM::emit_parallel_for(const tir::ForNode* n) {
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

}  // namespace lathe::codegen::detail
