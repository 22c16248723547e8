// Simplification of and, or, not and select: boolean identities, constant
// conditions, and negation pushed into comparisons.
#include "tir/arith/linear_sum.h"
#include "tir/arith/rewrite.h"
#include "tir/arith/simplifier.h"

namespace lathe::arith {

using te::ExprKind;

Expr Simplifier::simplify_and_or(const Expr& e, const Expr&, const Expr&) {
  using namespace rewrite;
  static const RuleSet and_rules = {
      {x && 1, x},
      {1 && x, x},
      {x && 0, 0},
      {0 && x, 0},
      {x && x, x},
      {x && !x, 0},
      {!x && x, 0},
      {(x && y) && x, x && y},
      {(x && y) && y, x && y},
      {broadcast(x, L) && broadcast(y, L), broadcast(x && y, L)},
  };
  static const RuleSet or_rules = {
      {x || 1, 1},
      {1 || x, 1},
      {x || 0, x},
      {0 || x, x},
      {x || x, x},
      {x || !x, 1},
      {!x || x, 1},
      {(x || y) || x, x || y},
      {(x || y) || y, x || y},
      {broadcast(x, L) || broadcast(y, L), broadcast(x || y, L)},
  };
  Expr r = (e.kind() == ExprKind::And ? and_rules : or_rules).apply(e, *this);
  return r.defined() ? r : e;
}

Expr Simplifier::make_not(const Expr& a) {
  if (te::as_const_int(a)) return te::logical_not(a);
  if (const auto* cmp = a.as<te::BinaryNode>(); cmp && te::is_comparison(cmp->kind)) {
    // not (a < b) is a >= b except for floats, where NaN makes both false.
    const bool ordered = cmp->kind != ExprKind::EQ && cmp->kind != ExprKind::NE;
    if (!ordered || cmp->a.type().is_integer())
      return raw_binary(negate_comparison(cmp->kind), cmp->a, cmp->b);
  }
  using namespace rewrite;
  static const RuleSet rules = {
      {!!x, x},
      {!broadcast(x, L), broadcast(!x, L)},
  };
  Expr e = te::logical_not(a);
  Expr r = rules.apply(e, *this);
  return r.defined() ? r : e;
}

Expr Simplifier::make_select(const Expr& cond, const Expr& t, const Expr& f) {
  if (const int64_t* c = te::as_const_int_lanes(cond)) return *c ? t : f;
  if (t.type().is_bool() && t.type() == cond.type()) {
    if (te::is_const_int(t, 1) && te::is_const_int(f, 0)) return cond;
    if (te::is_const_int(t, 0) && te::is_const_int(f, 1)) return make_not(cond);
  }
  using namespace rewrite;
  static const RuleSet rules = {
      {select(x, y, y), y},
      {select(!x, y, z), select(x, z, y)},
      {select(broadcast(x, L), broadcast(y, L), broadcast(z, L)), broadcast(select(x, y, z), L)},
  };
  Expr e = te::select(cond, t, f);
  Expr r = rules.apply(e, *this);
  return r.defined() ? r : e;
}

}  // namespace lathe::arith
