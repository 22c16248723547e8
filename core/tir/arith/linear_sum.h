// Internal to core/tir/arith: signed-integer sums in canonical linear form,
// sum(coeff * atom) + constant, the simplifier's normal form for + - and
// multiplication by constants (TVM's canonical SumExpr). Collecting terms is
// what turns (i*64 + j) - i*64 into j and x*4 + x*4 into x*8.
#pragma once

#include <unordered_map>
#include <utility>
#include <vector>

#include "te/expr.h"

namespace lathe::arith {

using te::DataType;
using te::Expr;

struct LinearSum {
  explicit LinearSum(DataType t) : type(t) {}

  // Adds scale * e, flattening +, - and products with a constant; any other
  // node is an atom. An atom equal to one already present merges with it.
  void add(const Expr& e, int64_t scale);
  // As add, without looking for equal atoms: for an operand that is already in
  // canonical form, whose atoms are distinct.
  void append(const Expr& e, int64_t scale);
  void add_term(const Expr& atom, int64_t coeff);
  void add_constant(int64_t c);
  // Multiplies every coefficient and the constant by k.
  void scale(int64_t k);
  // Rewrites (x // c)*(k*c) + (x % c)*k into x*k: the inverse of a split.
  void fuse_div_mod();
  bool has_terms() const;
  // Greatest common divisor of the coefficients and the constant (0 when all are 0).
  int64_t content() const;
  // Canonical expression: terms in first-occurrence order, led by the first
  // positive one (y - x rather than x*-1 + y), the constant last.
  Expr to_expr() const;

  DataType type;  // a scalar signed integer type
  std::vector<std::pair<Expr, int64_t>> terms;
  int64_t constant = 0;
  bool overflow = false;  // a coefficient overflowed: the sum must not be used

 private:
  void flatten(const Expr& e, int64_t scale, bool merge);

  // Positions of terms by structural hash, built once a sum grows past a few
  // terms, so that collecting n distinct atoms stays linear.
  std::unordered_multimap<size_t, size_t> index_;
  size_t indexed_ = 0;  // terms[0, indexed_) are in index_
};

// A hash consistent with te::structural_equal.
size_t structural_hash(const Expr& e);

int64_t gcd(int64_t a, int64_t b);

// A binary node built as is, with no folding or coercion: for operands whose
// types are known to agree.
Expr raw_binary(te::ExprKind kind, const Expr& a, const Expr& b);

}  // namespace lathe::arith
