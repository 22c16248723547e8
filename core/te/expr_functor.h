// Traversal of expressions: a pre-order visitor, and a mutator whose default
// rebuilds a node only when a child changed (so unchanged trees stay shared).
#pragma once

#include <functional>

#include "te/tensor.h"

namespace lathe::te {

// Calls f on e and on every subexpression, parents before children.
void visit_expr(const Expr& e, const std::function<void(const Expr&)>& f);

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  virtual Expr mutate(const Expr& e);

 protected:
  virtual Expr visit_var(const Expr& e) { return e; }
  virtual Expr visit_imm(const Expr& e) { return e; }
  virtual Expr visit_binary(const BinaryNode* n, const Expr& e);
  virtual Expr visit_not(const NotNode* n, const Expr& e);
  virtual Expr visit_select(const SelectNode* n, const Expr& e);
  virtual Expr visit_cast(const CastNode* n, const Expr& e);
  virtual Expr visit_call(const CallNode* n, const Expr& e);
  virtual Expr visit_producer_load(const ProducerLoadNode* n, const Expr& e);
  virtual Expr visit_reduce(const ReduceNode* n, const Expr& e);
  virtual Expr visit_load(const LoadNode* n, const Expr& e);
  virtual Expr visit_ramp(const RampNode* n, const Expr& e);
  virtual Expr visit_broadcast(const BroadcastNode* n, const Expr& e);
  virtual Expr visit_let(const LetNode* n, const Expr& e);
};

// The load `e` (whose node is `n`) with every index mapped by f; `e` itself
// when no index changes.
Expr map_load_indices(const ProducerLoadNode* n, const Expr& e,
                      const std::function<Expr(const Expr&)>& f);

// Replaces variables by expressions.
Expr substitute(const Expr& e, const VarMap<Expr>& map);
// Whether e reads the variable.
bool uses_var(const Expr& e, const Var& v);
// Structural equality: same tree shape, kinds, types, constants and variables.
bool structural_equal(const Expr& a, const Expr& b);

}  // namespace lathe::te
