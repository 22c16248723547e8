// Simplification of + and -: signed scalar integers through canonical linear
// sums; vectors and floats through rules.
#include "tir/arith/linear_sum.h"
#include "tir/arith/rewrite.h"
#include "tir/arith/simplifier.h"

namespace lathe::arith {

namespace {

Expr linear_combination(const Expr& e, const Expr& a, const Expr& b, int64_t b_scale) {
  LinearSum sum(e.type());
  sum.append(a, 1);
  sum.add(b, b_scale);
  sum.fuse_div_mod();
  return sum.overflow ? e : sum.to_expr();
}

}  // namespace

void Simplifier::collect_linear(const Expr& e, int64_t scale, LinearSum& sum) {
  int64_t scaled = 0;
  switch (e.kind()) {
    case te::ExprKind::IntImm:
      if (__builtin_mul_overflow(e.as<te::IntImmNode>()->value, scale, &scaled))
        sum.overflow = true;
      else
        sum.add_constant(scaled);
      return;
    case te::ExprKind::Add:
    case te::ExprKind::Sub: {
      const auto* n = e.as<te::BinaryNode>();
      collect_linear(n->a, scale, sum);
      if (__builtin_mul_overflow(scale, e.kind() == te::ExprKind::Add ? 1 : -1, &scaled))
        sum.overflow = true;
      else
        collect_linear(n->b, scaled, sum);
      return;
    }
    case te::ExprKind::Mul: {
      const auto* n = e.as<te::BinaryNode>();
      const int64_t* c = te::as_const_int(n->b);
      const Expr* other = &n->a;
      if (!c) {
        c = te::as_const_int(n->a);
        other = &n->b;
      }
      if (c) {
        if (__builtin_mul_overflow(scale, *c, &scaled))
          sum.overflow = true;
        else
          collect_linear(*other, scaled, sum);
        return;
      }
      break;
    }
    default:
      break;
  }
  // Anything else is simplified on its own; what comes back may itself be a
  // sum (a substituted variable, a split division) and is flattened in.
  if (const auto* n = e.as<te::BinaryNode>(); n && n->kind == te::ExprKind::Mul)
    sum.add(make_binary(te::ExprKind::Mul, mutate(n->a), mutate(n->b)), scale);
  else
    sum.add(mutate(e), scale);
}

Expr Simplifier::visit_linear(const Expr& e) {
  LinearSum sum(e.type());
  collect_linear(e, 1, sum);
  if (sum.overflow) {
    const auto* n = e.as<te::BinaryNode>();
    return raw_binary(e.kind(), mutate(n->a), mutate(n->b));
  }
  sum.fuse_div_mod();
  return sum.to_expr();
}

Expr Simplifier::simplify_add(const Expr& e, const Expr& a, const Expr& b) {
  if (is_linear_type(e.type())) return linear_combination(e, a, b, 1);
  using namespace rewrite;
  static const RuleSet rules = {
      {broadcast(x, L) + broadcast(y, L), broadcast(x + y, L)},
      {ramp(x, y, L) + broadcast(z, L), ramp(x + z, y, L)},
      {broadcast(z, L) + ramp(x, y, L), ramp(z + x, y, L)},
      {ramp(x, y, L) + ramp(z, w, L), ramp(x + z, y + w, L)},
      // Exact for floats too: x + 0.0 is x, up to the sign of a zero x.
      {x + 0, x},
      {0 + x, x},
  };
  Expr r = rules.apply(e, *this);
  return r.defined() ? r : e;
}

Expr Simplifier::simplify_sub(const Expr& e, const Expr& a, const Expr& b) {
  if (is_linear_type(e.type())) return linear_combination(e, a, b, -1);
  using namespace rewrite;
  static const RuleSet rules = {
      {broadcast(x, L) - broadcast(y, L), broadcast(x - y, L)},
      {ramp(x, y, L) - broadcast(z, L), ramp(x - z, y, L)},
      {broadcast(z, L) - ramp(x, y, L), ramp(z - x, 0 - y, L)},
      {ramp(x, y, L) - ramp(z, w, L), ramp(x - z, y - w, L)},
      {x - 0, x},
  };
  Expr r = rules.apply(e, *this);
  return r.defined() ? r : e;
}

}  // namespace lathe::arith
