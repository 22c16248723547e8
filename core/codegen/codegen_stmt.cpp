// Statements of the loop IR as LLVM control flow: loops with unroll and
// vectorize hints, stores (contiguous or scattered), stack allocations,
// branches and bindings. Parallel and thread-bound loops, and where an
// allocation lives, are the target kind's (codegen_cpu.cpp, codegen_nvptx.cpp).
#include <llvm/IR/Constants.h>
#include <llvm/IR/Metadata.h>

#include "codegen/llvm_codegen.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "tir/transform/inject_storage_sync.h"
#include "tir/transform/thread_allreduce.h"

namespace lathe::codegen::detail {

using te::DataType;
using te::Expr;

llvm::Value* CodeGenLLVM::bind(const te::Var& var, llvm::Value* value, const Expr& definition) {
  llvm::Value* shadowed = nullptr;
  if (auto it = values_.find(var); it != values_.end()) shadowed = it->second;
  values_[var] = value;
  if (definition.defined()) {
    if (var.type().is_integer()) {
      known_multiples_[var] = known_multiple(definition);
      if (non_negative(definition)) non_negative_vars_[var] = true;
    }
    // A handle bound to a buffer shares its alignment, but may alias it.
    if (definition.kind() == te::ExprKind::Var) {
      auto it = buffers_.find(te::Var(definition));
      if (it != buffers_.end()) {
        BufferFacts facts = it->second;
        facts.noalias = false;
        buffers_[var] = facts;
      }
    }
  }
  return shadowed;
}

void CodeGenLLVM::unbind(const te::Var& var, llvm::Value* shadowed) {
  if (shadowed)
    values_[var] = shadowed;
  else
    values_.erase(var);
}

void CodeGenLLVM::emit_stmt(const tir::Stmt& s) {
  if (!s.defined()) return;
  switch (s.kind()) {
    case tir::StmtKind::For:
      emit_for(s.as<tir::ForNode>());
      return;
    case tir::StmtKind::Store:
      emit_store(s.as<tir::StoreNode>());
      return;
    case tir::StmtKind::ProducerStore:
    case tir::StmtKind::ProducerRealize:
      fail_at(
          "a ProducerStore/ProducerRealize reached code generation: storage flattening must "
          "run first");
    case tir::StmtKind::Allocate:
      emit_allocate(s.as<tir::AllocateNode>());
      return;
    case tir::StmtKind::Seq:
      for (const tir::Stmt& part : s.as<tir::SeqNode>()->seq) emit_stmt(part);
      return;
    case tir::StmtKind::IfThenElse:
      emit_if(s.as<tir::IfThenElseNode>());
      return;
    case tir::StmtKind::LetStmt: {
      const auto* n = s.as<tir::LetStmtNode>();
      llvm::Value* shadowed = bind(n->var, emit_expr(n->value), n->value);
      emit_stmt(n->body);
      unbind(n->var, shadowed);
      return;
    }
    case tir::StmtKind::AttrStmt:
      // A barrier; other annotations (pragma_auto_unroll_max_step,
      // storage_alignment ...) carry nothing LLVM's own heuristics need.
      if (tir::is_thread_allreduce(s.as<tir::AttrStmtNode>()->key))
        return emit_thread_allreduce(s.as<tir::AttrStmtNode>());
      if (s.as<tir::AttrStmtNode>()->key == tir::kStorageSyncAttr) emit_barrier();
      emit_stmt(s.as<tir::AttrStmtNode>()->body);
      return;
    case tir::StmtKind::Evaluate:
      if (s.as<tir::EvaluateNode>()->value.defined()) emit_expr(s.as<tir::EvaluateNode>()->value);
      return;
  }
}

void CodeGenLLVM::emit_for(const tir::ForNode* n) {
  const std::string& name = n->loop_var.name();
  if (!n->loop_var.type().is_integer() || n->loop_var.type().is_vector())
    fail_at(str("loop variable '", name, "' has type ", n->loop_var.type().to_string(),
                "; loops count with scalar integers"));
  if (n->kind == tir::ForKind::ThreadBinding)
    emit_thread_binding(n);
  else if (n->kind == tir::ForKind::Parallel)
    emit_parallel_loop(n);
  else
    emit_loop(n);
}

void CodeGenLLVM::emit_loop(const tir::ForNode* n) {
  const std::string& name = n->loop_var.name();
  const DataType t = n->loop_var.type();
  llvm::Value* begin = cast_value(emit_expr(n->min), n->min.type(), t);
  llvm::Value* extent = cast_value(emit_expr(n->extent), n->extent.type(), t);
  llvm::Value* end = builder_.CreateAdd(begin, extent, name + ".end", false, t.is_int());
  llvm::MDNode* hint = nullptr;
  if (n->kind == tir::ForKind::Unrolled)
    hint = llvm::MDNode::get(ctx_, llvm::MDString::get(ctx_, "llvm.loop.unroll.full"));
  else if (n->kind == tir::ForKind::Vectorized)
    // Left for LLVM's loop vectorizer when lowering did not turn it into ramps.
    hint = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                    llvm::ConstantAsMetadata::get(builder_.getTrue())});
  if (non_negative(n->min)) non_negative_vars_[n->loop_var] = true;
  emit_serial_loop(n->loop_var, begin, end, n->body, hint);
}

void CodeGenLLVM::emit_serial_loop(const te::Var& loop_var, llvm::Value* begin, llvm::Value* end,
                                   const tir::Stmt& body, llvm::MDNode* loop_hint) {
  const std::string& name = loop_var.name();
  const bool is_signed = loop_var.type().is_int();
  llvm::BasicBlock* preheader = builder_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "for_begin." + name, function_);
  llvm::BasicBlock* body_bb = llvm::BasicBlock::Create(ctx_, "for_body." + name, function_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "for_end." + name, function_);
  builder_.CreateBr(header);

  builder_.SetInsertPoint(header);
  llvm::PHINode* index = builder_.CreatePHI(begin->getType(), 2, name);
  index->addIncoming(begin, preheader);
  llvm::Value* more =
      is_signed ? builder_.CreateICmpSLT(index, end) : builder_.CreateICmpULT(index, end);
  builder_.CreateCondBr(more, body_bb, exit);

  builder_.SetInsertPoint(body_bb);
  llvm::Value* shadowed = bind(loop_var, index, Expr());
  emit_stmt(body);
  unbind(loop_var, shadowed);
  llvm::Value* next = builder_.CreateAdd(index, llvm::ConstantInt::get(index->getType(), 1),
                                         name + ".next", false, is_signed);
  llvm::BasicBlock* latch = builder_.GetInsertBlock();
  llvm::BranchInst* backedge = builder_.CreateBr(header);
  index->addIncoming(next, latch);
  if (loop_hint) {
    // A loop id is a distinct node whose first operand is itself.
    llvm::SmallVector<llvm::Metadata*, 2> operands{nullptr, loop_hint};
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx_, operands);
    loop_id->replaceOperandWith(0, loop_id);
    backedge->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }
  builder_.SetInsertPoint(exit);
}

void CodeGenLLVM::emit_store(const tir::StoreNode* n) {
  const DataType t = n->value.type();
  llvm::Value* value = emit_expr(n->value);
  if (t.is_bool()) value = builder_.CreateZExt(value, memory_type(t));
  llvm::Value* base = buffer_pointer(n->buffer);
  llvm::Type* element = memory_type(t.element_of());
  const int64_t element_bytes = memory_bytes(t.element_of());
  const auto* ramp = n->index.as<te::RampNode>();
  if (t.lanes == 1) {
    llvm::Value* index = to_index(emit_expr(n->index), n->index.type());
    llvm::Value* ptr = builder_.CreateInBoundsGEP(element, base, index);
    builder_.CreateAlignedStore(value, ptr,
                                llvm::Align(access_alignment(n->buffer, n->index, element_bytes)));
  } else if (ramp && ramp->lanes == t.lanes && te::is_const_int(ramp->stride, 1)) {
    llvm::Value* index = to_index(emit_expr(ramp->base), ramp->base.type());
    llvm::Value* ptr = builder_.CreateInBoundsGEP(element, base, index);
    builder_.CreateAlignedStore(
        value, ptr, llvm::Align(access_alignment(n->buffer, ramp->base, element_bytes)));
  } else {
    // Lanes in any order: a scatter (lanes writing one address land in lane order).
    llvm::Value* index = to_index(emit_expr(n->index), n->index.type());
    llvm::Value* ptrs = builder_.CreateInBoundsGEP(element, base, index);
    builder_.CreateMaskedScatter(value, ptrs, llvm::Align(element_bytes));
  }
}

int64_t CodeGenLLVM::constant_allocation_count(const tir::AllocateNode* n) const {
  int64_t count = 1;
  bool constant = true;
  for (const Expr& extent : n->extents) {
    const int64_t* c = te::as_const_int(extent);
    if (!c) {
      constant = false;
      continue;
    }
    if (*c < 0) fail_at(str("allocation '", n->buffer.name(), "' has a negative extent"));
    if (*c != 0 && count > (int64_t(1) << 50) / *c)
      fail_at(str("allocation '", n->buffer.name(), "' is too large"));
    count *= *c;
  }
  return constant ? count : -1;
}

void CodeGenLLVM::emit_stack_allocate(const tir::AllocateNode* n, int64_t bytes) {
  BufferFacts facts;
  facts.alignment = runtime::kTensorAlignment;
  facts.noalias = true;
  bytes = std::max<int64_t>(bytes, 1);
  llvm::AllocaInst* slot = entry_alloca(llvm::ArrayType::get(builder_.getInt8Ty(), bytes),
                                        runtime::kTensorAlignment, n->buffer.name());
  facts.dereferenceable = bytes;
  buffers_[n->buffer] = facts;
  // Lifetime markers let allocations of sibling scopes share stack slots.
  builder_.CreateLifetimeStart(slot, builder_.getInt64(bytes));
  llvm::Value* shadowed = bind(n->buffer, slot, Expr());
  emit_stmt(n->body);
  unbind(n->buffer, shadowed);
  builder_.CreateLifetimeEnd(slot, builder_.getInt64(bytes));
}

void CodeGenLLVM::emit_if(const tir::IfThenElseNode* n) {
  if (n->condition.type().lanes != 1)
    fail_at(str("if condition of type ", n->condition.type().to_string(), " is not a scalar"));
  llvm::Value* cond = emit_expr(n->condition);
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "if_then", function_);
  llvm::BasicBlock* else_bb =
      n->else_case.defined() ? llvm::BasicBlock::Create(ctx_, "if_else", function_) : nullptr;
  llvm::BasicBlock* end_bb = llvm::BasicBlock::Create(ctx_, "if_end", function_);
  if (!else_bb) else_bb = end_bb;
  builder_.CreateCondBr(cond, then_bb, else_bb);
  builder_.SetInsertPoint(then_bb);
  emit_stmt(n->then_case);
  builder_.CreateBr(end_bb);
  if (n->else_case.defined()) {
    builder_.SetInsertPoint(else_bb);
    emit_stmt(n->else_case);
    builder_.CreateBr(end_bb);
  }
  builder_.SetInsertPoint(end_bb);
}

}  // namespace lathe::codegen::detail
