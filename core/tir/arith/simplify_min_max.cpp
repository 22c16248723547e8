// Simplification of min and max: an operand provably no larger (for min) or
// no smaller (for max) than the other wins outright; rules fold nested
// constants and move constants to the right.
#include "tir/arith/rewrite.h"
#include "tir/arith/simplifier.h"

namespace lathe::arith {

using te::ExprKind;

Expr Simplifier::simplify_min_max(const Expr& e, const Expr& a, const Expr& b) {
  const bool is_min = e.kind() == ExprKind::Min;
  if (e.type().is_integer()) {
    // For signed integers the difference cancels common terms, so
    // min(x + 1, x) is decided; otherwise compare the operands' bounds.
    IntBounds d = e.type().is_int() ? bounds(make_binary(ExprKind::Sub, a, b))
                                    : bounds_sub(bounds(a), bounds(b));
    if (d.has_max && d.max <= 0) return is_min ? a : b;
    if (d.has_min && d.min >= 0) return is_min ? b : a;
  }
  using namespace rewrite;
  static const RuleSet min_rules = {
      {min(x, x), x},
      {min(c0, x), min(x, c0)},
      {min(min(x, c0), c1), min(x, min(c0, c1))},
      {min(max(x, y), x), x},
      {min(max(y, x), x), x},
      {min(x, max(x, y)), x},
      {min(x, max(y, x)), x},
      {min(broadcast(x, L), broadcast(y, L)), broadcast(min(x, y), L)},
  };
  static const RuleSet max_rules = {
      {max(x, x), x},
      {max(c0, x), max(x, c0)},
      {max(max(x, c0), c1), max(x, max(c0, c1))},
      {max(min(x, y), x), x},
      {max(min(y, x), x), x},
      {max(x, min(x, y)), x},
      {max(x, min(y, x)), x},
      {max(broadcast(x, L), broadcast(y, L)), broadcast(max(x, y), L)},
  };
  Expr r = (is_min ? min_rules : max_rules).apply(e, *this);
  return r.defined() ? r : e;
}

}  // namespace lathe::arith
