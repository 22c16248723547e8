// Internal to core/tir/arith: the expression simplifier, after Halide's
// Simplify. mutate() simplifies the children and then the node; the make_*
// constructors simplify one node whose operands are already simplified, so a
// rewrite rule's replacement is simplified as it is built. The rules of each
// operator family live in their own file (simplify_add_sub.cpp ...).
#pragma once

#include <utility>
#include <vector>

#include "tir/arith/bound_analyzer.h"
#include "tir/arith/interval.h"

namespace lathe::arith {

struct LinearSum;

class Simplifier {
 public:
  explicit Simplifier(const BoundMap& bounds);
  Simplifier(const Simplifier&) = delete;
  Simplifier& operator=(const Simplifier&) = delete;

  Expr mutate(const Expr& e);

  // One node over simplified operands.
  Expr make_binary(te::ExprKind kind, Expr a, Expr b);
  Expr make_not(const Expr& a);
  Expr make_select(const Expr& cond, const Expr& t, const Expr& f);
  Expr make_cast(DataType t, const Expr& v);
  Expr make_ramp(const Expr& base, const Expr& stride, int lanes);
  Expr make_broadcast(const Expr& value, int lanes);

  IntBounds bounds(const Expr& e) { return analyzer_.bounds(e); }

  // Narrows a variable's bounds until the matching pop.
  void push_bounds(const Var& v, const IntBounds& b);
  void pop_bounds();
  // Replaces a variable by a (simplified) expression until the matching pop.
  void push_substitution(const Var& v, const Expr& value);
  void pop_substitution();
  // Variable bounds that follow from `cond` having the value `holds`, e.g.
  // i < 10 holding gives i <= 9. Returns how many were pushed, to pop later.
  int push_facts(const Expr& cond, bool holds);

 private:
  Expr visit_var(const Expr& e);
  // A whole tree of signed-integer + - and products by constants at once:
  // one canonical sum is built for it, rather than one per nested node.
  Expr visit_linear(const Expr& e);
  void collect_linear(const Expr& e, int64_t scale, LinearSum& sum);
  Expr visit_select(const te::SelectNode* n);
  Expr visit_logic(const te::BinaryNode* n);
  Expr visit_let(const te::LetNode* n);
  Expr visit_reduce(const te::ReduceNode* n, const Expr& e);

  // Operator families, one file each; operands are simplified and of one type.
  Expr simplify_add(const Expr& e, const Expr& a, const Expr& b);
  Expr simplify_sub(const Expr& e, const Expr& a, const Expr& b);
  Expr simplify_mul(const Expr& e, const Expr& a, const Expr& b);
  Expr simplify_div(const Expr& e, const Expr& a, const Expr& b);
  Expr simplify_mod(const Expr& e, const Expr& a, const Expr& b);
  Expr simplify_min_max(const Expr& e, const Expr& a, const Expr& b);
  Expr simplify_cmp(const Expr& e, const Expr& a, const Expr& b);
  Expr simplify_and_or(const Expr& e, const Expr& a, const Expr& b);
  Expr fold_float(te::ExprKind kind, const Expr& a, const Expr& b);

  BoundMap bounds_;
  BoundAnalyzer analyzer_{bounds_};
  te::VarMap<Expr> substitutions_;
  // Saved entries for pop: the variable and what it had before (if anything).
  std::vector<std::pair<Var, std::pair<bool, IntBounds>>> bound_stack_;
  std::vector<std::pair<Var, std::pair<bool, Expr>>> substitution_stack_;
  int depth_ = 0;  // nesting of make_binary, a guard against runaway rewrites
};

// Whether e is a signed scalar integer: the types linear forms apply to.
inline bool is_linear_type(DataType t) {
  return t.is_int() && t.is_scalar();
}

// The comparison that holds exactly when `k` does not (LT -> GE, EQ -> NE ...).
te::ExprKind negate_comparison(te::ExprKind k);

}  // namespace lathe::arith
