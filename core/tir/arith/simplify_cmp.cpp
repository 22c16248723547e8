// Simplification of comparisons. Integer comparisons are decided from the
// bounds of a - b (i < 1024 is true for i in [0, 1024)); an undecided signed
// comparison is normalised to P op N + c over the linear form of a - b, with
// common factors divided out (x*4 < 8 becomes x < 2).
#include "tir/arith/bound_analyzer.h"
#include "tir/arith/linear_sum.h"
#include "tir/arith/rewrite.h"
#include "tir/arith/simplifier.h"

namespace lathe::arith {

using te::ExprKind;

namespace {

// The truth of `d k 0` when d lies within b: 1, 0, or -1 when undecided.
int decide(ExprKind k, const IntBounds& d) {
  const bool neg = d.has_max && d.max < 0, pos = d.has_min && d.min > 0;
  const bool nonpos = d.has_max && d.max <= 0, nonneg = d.has_min && d.min >= 0;
  switch (k) {
    case ExprKind::LT:
      return neg ? 1 : nonneg ? 0 : -1;
    case ExprKind::LE:
      return nonpos ? 1 : pos ? 0 : -1;
    case ExprKind::GT:
      return pos ? 1 : nonpos ? 0 : -1;
    case ExprKind::GE:
      return nonneg ? 1 : neg ? 0 : -1;
    case ExprKind::EQ:
      return d.is_single() && d.min == 0 ? 1 : (neg || pos) ? 0 : -1;
    default:  // NE
      return d.is_single() && d.min == 0 ? 0 : (neg || pos) ? 1 : -1;
  }
}

}  // namespace

Expr Simplifier::simplify_cmp(const Expr& e, const Expr& a, const Expr& b) {
  const ExprKind k = e.kind();
  const DataType t = a.type();
  if (t.is_integer()) {
    const bool is_signed = t.is_int();
    // Unsigned differences wrap, so those compare the operands' bounds instead.
    Expr diff = is_signed ? make_binary(ExprKind::Sub, a, b) : Expr();
    IntBounds d = is_signed ? bounds(diff) : bounds_sub(bounds(a), bounds(b));
    if (int truth = decide(k, d); truth >= 0) return te::make_const(e.type(), truth);

    if (is_linear_type(t)) {
      LinearSum sum(t);
      sum.append(diff, 1);
      if (sum.overflow) return e;
      // Divide out the common factor g of the terms: g*s + c k 0.
      int64_t g = 0;
      for (const auto& term : sum.terms) g = gcd(g, term.second);
      if (g > 1) {
        for (auto& term : sum.terms) term.second /= g;
        switch (k) {
          case ExprKind::LT:  // g*s < -c  <=>  s < ceil(-c/g)  <=>  s + floor(c/g) < 0
          case ExprKind::GE:  // the negation of <
            sum.constant = floordiv(sum.constant, g);
            break;
          case ExprKind::LE:  // g*s <= -c  <=>  s <= floor(-c/g)
          case ExprKind::GT:
            sum.constant = -floordiv(-sum.constant, g);
            break;
          default:  // == and !=: no solution unless g divides c
            if (floormod(sum.constant, g) != 0) return te::make_const(e.type(), k == ExprKind::NE);
            sum.constant /= g;
            break;
        }
      }
      // Positive terms on the left, negative ones on the right, the constant
      // where it is positive: i + 1 < n, 3 < x, i*4 + j < 100.
      LinearSum lhs(t), rhs(t);
      for (const auto& [atom, coeff] : sum.terms) {
        if (coeff > 0) lhs.terms.emplace_back(atom, coeff);
        if (coeff < 0) rhs.terms.emplace_back(atom, -coeff);
      }
      if (sum.constant > 0)
        lhs.constant = sum.constant;
      else
        rhs.constant = -sum.constant;
      return raw_binary(k, lhs.to_expr(), rhs.to_expr());
    }
  }
  using namespace rewrite;
  static const RuleSet rules = {
      {broadcast(x, L) < broadcast(y, L), broadcast(x < y, L)},
      {broadcast(x, L) <= broadcast(y, L), broadcast(x <= y, L)},
      {broadcast(x, L) > broadcast(y, L), broadcast(x > y, L)},
      {broadcast(x, L) >= broadcast(y, L), broadcast(x >= y, L)},
      {broadcast(x, L) == broadcast(y, L), broadcast(x == y, L)},
      {broadcast(x, L) != broadcast(y, L), broadcast(x != y, L)},
  };
  Expr r = rules.apply(e, *this);
  return r.defined() ? r : e;
}

ExprKind negate_comparison(ExprKind k) {
  switch (k) {
    case ExprKind::LT:
      return ExprKind::GE;
    case ExprKind::LE:
      return ExprKind::GT;
    case ExprKind::GT:
      return ExprKind::LE;
    case ExprKind::GE:
      return ExprKind::LT;
    case ExprKind::EQ:
      return ExprKind::NE;
    default:
      return ExprKind::EQ;
  }
}

}  // namespace lathe::arith
