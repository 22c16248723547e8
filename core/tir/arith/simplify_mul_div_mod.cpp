// Simplification of *, floordiv and floormod. For signed scalar integers,
// division by a positive constant splits a linear sum into the terms the
// divisor divides and a remainder, and the variable bounds decide the
// remainder: (i*64 + j) // 64 is i and (i*64 + j) % 64 is j when 0 <= j < 64.
#include <optional>

#include "tir/arith/bound_analyzer.h"
#include "tir/arith/linear_sum.h"
#include "tir/arith/rewrite.h"
#include "tir/arith/simplifier.h"

namespace lathe::arith {

using te::ExprKind;

Expr Simplifier::simplify_mul(const Expr& e, const Expr& a, const Expr& b) {
  if (is_linear_type(e.type())) {
    const int64_t* ca = te::as_const_int(a);
    const int64_t* cb = te::as_const_int(b);
    if (!ca && !cb) return e;
    LinearSum sum(e.type());
    sum.append(cb ? a : b, cb ? *cb : *ca);
    return sum.overflow ? e : sum.to_expr();
  }
  using namespace rewrite;
  static const RuleSet rules = {
      {broadcast(x, L) * broadcast(y, L), broadcast(x * y, L)},
      {ramp(x, y, L) * broadcast(z, L), ramp(x * z, y * z, L)},
      {broadcast(z, L) * ramp(x, y, L), ramp(z * x, z * y, L)},
      {x * 1, x},
      {1 * x, x},
  };
  Expr r = rules.apply(e, *this);
  return r.defined() ? r : e;
}

namespace {

// The terms of `sum` divided by g, which divides all of them.
void divide_exactly(LinearSum& sum, int64_t g) {
  for (auto& term : sum.terms) term.second /= g;
  sum.constant /= g;
}

// What is known of an integer's residues, TVM's ModularSet: the value is
// residue + coeff*k for some integer k; coeff 0 means it is exactly residue.
struct Residues {
  int64_t coeff = 1, residue = 0;
};

Residues normalized(int64_t coeff, int64_t residue) {
  coeff = coeff < 0 ? -coeff : coeff;
  return {coeff, coeff ? floormod(residue, coeff) : residue};
}

// Residues of a scalar integer expression, through sums, products by
// constants, floormod by constants and widening casts; anything else (a
// variable, a division) may be any integer.
Residues residues_of(const Expr& e) {
  if (const int64_t* c = te::as_const_int(e)) return {0, *c};
  if (const auto* cast = e.as<te::CastNode>()) {
    const DataType from = cast->value.type(), to = e.type();
    if (from.is_int() && to.is_int() && to.bits >= from.bits) return residues_of(cast->value);
    return {};
  }
  const auto* n = e.as<te::BinaryNode>();
  if (!n) return {};
  const Residues a = residues_of(n->a), b = residues_of(n->b);
  switch (n->kind) {
    case ExprKind::Add:
      return normalized(gcd(a.coeff, b.coeff), a.residue + b.residue);
    case ExprKind::Sub:
      return normalized(gcd(a.coeff, b.coeff), a.residue - b.residue);
    case ExprKind::Mul:
      if (b.coeff == 0) return normalized(a.coeff * b.residue, a.residue * b.residue);
      if (a.coeff == 0) return normalized(b.coeff * a.residue, b.residue * a.residue);
      return {};
    case ExprKind::Mod:
      // x % c = x - c*k keeps x's residues modulo any divisor of c.
      if (b.coeff == 0 && b.residue > 0) return normalized(gcd(a.coeff, b.residue), a.residue);
      return {};
    default:
      return {};
  }
}

// Whether the lanes of ramp(base, stride, lanes) all fall in one block of
// `divisor` whatever base's variables are, by base's residues: when base is
// r modulo g and g divides the divisor, base % divisor is at most
// divisor - g + r, so the last lane stays in the block when
// r + stride*(lanes-1) < g. (ch*16) // 144 with the lanes over the 16
// channels of a block is one block however large ch grows, which bounds
// alone cannot show.
bool ramp_in_one_block(const Expr& ramp, int64_t divisor) {
  const auto* r = ramp.as<te::RampNode>();
  if (!r || divisor <= 0 || !r->base.type().is_int()) return false;
  const int64_t* stride = te::as_const_int(r->stride);
  if (!stride || *stride < 0) return false;
  const Residues base = residues_of(r->base);
  if (base.coeff <= 0 || divisor % base.coeff != 0) return false;
  return base.residue + *stride * (r->lanes - 1) < base.coeff;
}

// The residue modulo `divisor` of a ramp's base that has variables but one
// residue for all of them (base = divisor * k + r): the ramp's lanes modulo
// the divisor are then those of ramp(r, stride, lanes), constants, and their
// quotients k more. A resize's weights per output column with period 8,
// looked up at (16 * i3_outer + lane) % 8, are one constant vector that way
// instead of a tree of int64 vector selects in every iteration.
std::optional<int64_t> ramp_base_residue(const Expr& ramp, int64_t divisor) {
  const auto* r = ramp.as<te::RampNode>();
  if (!r || divisor <= 0 || !r->base.type().is_int() || te::as_const_int(r->base)) return {};
  const int64_t* stride = te::as_const_int(r->stride);
  if (!stride || *stride < 0) return {};
  const Residues base = residues_of(r->base);
  if (base.coeff <= 0 || base.coeff % divisor != 0) return {};
  return floormod(base.residue, divisor);
}

}  // namespace

Expr Simplifier::simplify_div(const Expr& e, const Expr& a, const Expr& b) {
  using namespace rewrite;
  static const RuleSet rules = {
      {x / 1, x},
      {broadcast(x, L) / broadcast(y, L), broadcast(x / y, L)},
  };
  // Exact for floor division only, not for rounded float division.
  static const RuleSet integer_rules = {
      {(x / c0) / c1, x / (c0 * c1), c0 > 0 && c1 > 0},
      // A ramp whose lanes all fall in one block of c1 divides to a broadcast.
      {ramp(x, c0, L) / broadcast(c1, L), broadcast(x / c1, L),
       c0 >= 0 && c1 > 0 && (x % c1) + c0 * (L - 1) < c1},
  };
  if (Expr r = rules.apply(e, *this); r.defined()) return r;
  if (e.type().is_integer())
    if (Expr r = integer_rules.apply(e, *this); r.defined()) return r;
  if (const auto* bb = b.as<te::BroadcastNode>(); bb && e.type().is_integer())
    if (const int64_t* c = te::as_const_int(bb->value)) {
      const auto* r = a.as<te::RampNode>();
      if (ramp_in_one_block(a, *c))
        return make_broadcast(make_binary(ExprKind::Div, r->base, bb->value), r->lanes);
      if (const std::optional<int64_t> rest = ramp_base_residue(a, *c)) {
        // ramp(c*k + r, s, L) // c = broadcast(k) + ramp(r, s, L) // c.
        const Expr r0 = te::make_int(*rest, r->base.type());
        const Expr k =
            make_binary(ExprKind::Div, make_binary(ExprKind::Sub, r->base, r0), bb->value);
        return make_binary(ExprKind::Add, make_broadcast(k, r->lanes),
                           make_binary(ExprKind::Div, make_ramp(r0, r->stride, r->lanes), b));
      }
    }
  const int64_t* cb = te::as_const_int(b);
  if (!is_linear_type(e.type()) || !cb || *cb <= 0) return e;

  LinearSum sum(e.type());
  sum.append(a, 1);
  if (sum.overflow) return e;
  int64_t c = *cb;
  // (g*s) // (g*m) is s // m for positive g.
  const int64_t g = gcd(sum.content(), c);
  if (g > 1) {
    divide_exactly(sum, g);
    c /= g;
  }
  // floordiv(q*c + r, c) = q + floordiv(r, c), exactly, for any integer r.
  LinearSum quotient(e.type()), rest(e.type());
  for (const auto& [atom, coeff] : sum.terms) {
    if (coeff % c == 0)
      quotient.terms.emplace_back(atom, coeff / c);
    else
      rest.terms.emplace_back(atom, coeff);
  }
  quotient.constant = floordiv(sum.constant, c);
  rest.constant = floormod(sum.constant, c);
  Expr rest_expr = rest.to_expr();
  IntBounds rb = bounds(rest_expr);
  if (rb.is_bounded() && floordiv(rb.min, c) == floordiv(rb.max, c)) {
    quotient.add_constant(floordiv(rb.min, c));
    return quotient.to_expr();
  }
  if (g == 1 && !quotient.has_terms() && quotient.constant == 0) return e;
  // rest has no term that c divides, so this division stays as it is.
  quotient.add(make_binary(ExprKind::Div, rest_expr, te::make_int(c, e.type())), 1);
  return quotient.overflow ? e : quotient.to_expr();
}

Expr Simplifier::simplify_mod(const Expr& e, const Expr& a, const Expr& b) {
  using namespace rewrite;
  static const RuleSet rules = {
      {x % 1, 0},
      {(x % c0) % c1, x % c1, c1 > 0 && c0 % c1 == 0},
      {broadcast(x, L) % broadcast(y, L), broadcast(x % y, L)},
      {ramp(x, c0, L) % broadcast(c1, L), ramp(x % c1, c0, L),
       c0 >= 0 && c1 > 0 && (x % c1) + c0 * (L - 1) < c1},
  };
  if (e.type().is_integer())
    if (Expr r = rules.apply(e, *this); r.defined()) return r;
  if (const auto* bb = b.as<te::BroadcastNode>(); bb && e.type().is_integer())
    if (const int64_t* c = te::as_const_int(bb->value)) {
      const auto* r = a.as<te::RampNode>();
      if (ramp_in_one_block(a, *c))
        return make_ramp(make_binary(ExprKind::Mod, r->base, bb->value), r->stride, r->lanes);
      if (const std::optional<int64_t> rest = ramp_base_residue(a, *c))
        return make_binary(ExprKind::Mod,
                           make_ramp(te::make_int(*rest, r->base.type()), r->stride, r->lanes), b);
    }
  const int64_t* cb = te::as_const_int(b);
  if (!is_linear_type(e.type()) || !cb || *cb <= 0) return e;

  const int64_t c = *cb;
  LinearSum sum(e.type());
  sum.append(a, 1);
  if (sum.overflow) return e;
  // Terms that c divides vanish modulo c.
  LinearSum rest(e.type());
  bool changed = false;
  for (const auto& [atom, coeff] : sum.terms) {
    if (coeff % c == 0)
      changed = true;
    else
      rest.terms.emplace_back(atom, coeff);
  }
  rest.constant = floormod(sum.constant, c);
  changed |= rest.constant != sum.constant;
  Expr rest_expr = rest.to_expr();
  IntBounds rb = bounds(rest_expr);
  if (rb.is_bounded() && floordiv(rb.min, c) == floordiv(rb.max, c)) {
    rest.add_constant(-floordiv(rb.min, c) * c);
    return rest.to_expr();
  }
  if (!changed) return e;
  return make_binary(ExprKind::Mod, rest_expr, te::make_int(c, e.type()));
}

}  // namespace lathe::arith
