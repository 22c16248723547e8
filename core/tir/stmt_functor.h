// Traversal of statements. StmtMutator rebuilds a node only when a child
// changed; IRMutator also rewrites every expression through te::ExprMutator,
// the base of most lowering passes (after Halide's IRMutator).
#pragma once

#include <functional>

#include "te/expr_functor.h"
#include "tir/stmt.h"

namespace lathe::tir {

// Calls f on s and every nested statement, parents first.
void visit_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f);
// Calls f on every expression directly held by s or a nested statement.
void visit_stmt_exprs(const Stmt& s, const std::function<void(const Expr&)>& f);

class StmtMutator {
 public:
  virtual ~StmtMutator() = default;
  virtual Stmt mutate(const Stmt& s);
  // Rewrites an expression held by a statement; the identity by default.
  virtual Expr mutate_expr(const Expr& e) { return e; }

 protected:
  virtual Stmt visit_for(const ForNode* n, const Stmt& s);
  virtual Stmt visit_store(const StoreNode* n, const Stmt& s);
  virtual Stmt visit_producer_store(const ProducerStoreNode* n, const Stmt& s);
  virtual Stmt visit_producer_realize(const ProducerRealizeNode* n, const Stmt& s);
  virtual Stmt visit_allocate(const AllocateNode* n, const Stmt& s);
  virtual Stmt visit_seq(const SeqNode* n, const Stmt& s);
  virtual Stmt visit_if(const IfThenElseNode* n, const Stmt& s);
  virtual Stmt visit_let(const LetStmtNode* n, const Stmt& s);
  virtual Stmt visit_attr(const AttrStmtNode* n, const Stmt& s);
  virtual Stmt visit_evaluate(const EvaluateNode* n, const Stmt& s);
};

class IRMutator : public te::ExprMutator, public StmtMutator {
 public:
  using StmtMutator::mutate;
  using te::ExprMutator::mutate;
  Expr mutate_expr(const Expr& e) override { return te::ExprMutator::mutate(e); }
};

// Replaces variables in every expression of s.
Stmt substitute(const Stmt& s, const te::VarMap<Expr>& map);

}  // namespace lathe::tir
