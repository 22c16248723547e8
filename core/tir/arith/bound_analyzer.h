// Internal to core/tir/arith: the constant-bounds evaluator behind
// const_bounds(), with a per-node cache so that the simplifier can ask for the
// bounds of many overlapping subexpressions without rescanning them.
#pragma once

#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "support/int_math.h"
#include "tir/arith/interval.h"

namespace lathe::arith {

// Interval arithmetic on IntBounds; an overflowing side becomes unbounded.
IntBounds bounds_add(const IntBounds& a, const IntBounds& b);
IntBounds bounds_sub(const IntBounds& a, const IntBounds& b);
IntBounds bounds_mul(const IntBounds& a, const IntBounds& b);
IntBounds bounds_floordiv(const IntBounds& a, const IntBounds& b);
IntBounds bounds_floormod(const IntBounds& a, const IntBounds& b);
IntBounds bounds_min(const IntBounds& a, const IntBounds& b);
IntBounds bounds_max(const IntBounds& a, const IntBounds& b);
IntBounds bounds_union(const IntBounds& a, const IntBounds& b);
IntBounds bounds_intersect(const IntBounds& a, const IntBounds& b);
// The range of an integer type ([0, 1] for bool); everything for non-integers.
IntBounds bounds_of_type(DataType t);

class BoundAnalyzer {
 public:
  // `vars` is read at every query, so a caller may change it between queries
  // provided it calls clear_cache() afterwards.
  explicit BoundAnalyzer(const BoundMap& vars) : vars_(vars) {}
  IntBounds bounds(const Expr& e);
  void clear_cache() { cache_.clear(); }

 private:
  IntBounds compute(const Expr& e);
  IntBounds var_bounds(const Expr& v) const;

  const BoundMap& vars_;
  std::vector<std::pair<Var, IntBounds>> lets_;  // Let-bound inside the expression
  // Keyed by node; the entry holds the node so that its address is not reused.
  std::unordered_map<const te::ExprNode*, std::pair<std::shared_ptr<const te::ExprNode>, IntBounds>>
      cache_;
};

}  // namespace lathe::arith
