// Flattening into and rebuilding from canonical linear sums.
#include "tir/arith/linear_sum.h"

#include <cstdlib>

#include "te/expr_functor.h"

namespace lathe::arith {

using te::ExprKind;

int64_t gcd(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

Expr raw_binary(ExprKind kind, const Expr& a, const Expr& b) {
  te::DataType t = te::is_comparison(kind) || kind == ExprKind::And || kind == ExprKind::Or
                       ? te::DataType::Bool(a.type().lanes)
                       : a.type();
  return Expr(std::make_shared<const te::BinaryNode>(kind, t, a, b));
}

void LinearSum::add(const Expr& e, int64_t scale) {
  flatten(e, scale, true);
}

void LinearSum::append(const Expr& e, int64_t scale) {
  flatten(e, scale, false);
}

void LinearSum::flatten(const Expr& e, int64_t scale, bool merge) {
  int64_t scaled = 0;
  switch (e.kind()) {
    case ExprKind::IntImm:
      if (__builtin_mul_overflow(e.as<te::IntImmNode>()->value, scale, &scaled))
        overflow = true;
      else
        add_constant(scaled);
      return;
    case ExprKind::Add:
    case ExprKind::Sub: {
      const auto* n = e.as<te::BinaryNode>();
      flatten(n->a, scale, merge);
      if (__builtin_mul_overflow(scale, e.kind() == ExprKind::Add ? 1 : -1, &scaled))
        overflow = true;
      else
        flatten(n->b, scaled, merge);
      return;
    }
    case ExprKind::Mul: {
      const auto* n = e.as<te::BinaryNode>();
      const int64_t* ca = te::as_const_int(n->a);
      const int64_t* cb = te::as_const_int(n->b);
      if (ca || cb) {
        if (__builtin_mul_overflow(scale, cb ? *cb : *ca, &scaled))
          overflow = true;
        else
          flatten(cb ? n->a : n->b, scaled, merge);
        return;
      }
      break;
    }
    default:
      break;
  }
  if (merge)
    add_term(e, scale);
  else if (scale != 0)
    terms.emplace_back(e, scale);
}

size_t structural_hash(const Expr& e) {
  auto mix = [](size_t h, size_t v) {
    return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  };
  size_t h = static_cast<size_t>(e.kind()) * 0x100000001b3ULL;
  switch (e.kind()) {
    case ExprKind::IntImm:
      return mix(h, std::hash<int64_t>()(e.as<te::IntImmNode>()->value));
    case ExprKind::FloatImm:
      return mix(h, std::hash<double>()(e.as<te::FloatImmNode>()->value));
    case ExprKind::Var:
      return mix(h, std::hash<const void*>()(e.get()));
    default:
      break;
  }
  // Children, in visiting order; the root itself is skipped.
  bool root = true;
  te::visit_expr(e, [&](const Expr& x) {
    if (root) {
      root = false;
      return;
    }
    h = mix(h, static_cast<size_t>(x.kind()));
    if (const auto* i = x.as<te::IntImmNode>()) h = mix(h, std::hash<int64_t>()(i->value));
    if (x.kind() == ExprKind::Var) h = mix(h, std::hash<const void*>()(x.get()));
  });
  return h;
}

void LinearSum::add_term(const Expr& atom, int64_t coeff) {
  if (coeff == 0) return;
  constexpr size_t kIndexFrom = 8;
  if (terms.size() < kIndexFrom) {
    for (auto& [a, c] : terms) {
      if (te::structural_equal(a, atom)) {
        if (__builtin_add_overflow(c, coeff, &c)) overflow = true;
        return;
      }
    }
    terms.emplace_back(atom, coeff);
    return;
  }
  for (; indexed_ < terms.size(); ++indexed_)
    index_.emplace(structural_hash(terms[indexed_].first), indexed_);
  const size_t h = structural_hash(atom);
  auto [first, last] = index_.equal_range(h);
  for (auto it = first; it != last; ++it) {
    auto& [a, c] = terms[it->second];
    if (te::structural_equal(a, atom)) {
      if (__builtin_add_overflow(c, coeff, &c)) overflow = true;
      return;
    }
  }
  terms.emplace_back(atom, coeff);
  index_.emplace(h, indexed_++);
}

void LinearSum::add_constant(int64_t c) {
  if (__builtin_add_overflow(constant, c, &constant)) overflow = true;
}

void LinearSum::scale(int64_t k) {
  for (auto& term : terms)
    if (__builtin_mul_overflow(term.second, k, &term.second)) overflow = true;
  if (__builtin_mul_overflow(constant, k, &constant)) overflow = true;
}

bool LinearSum::has_terms() const {
  for (const auto& term : terms)
    if (term.second != 0) return true;
  return false;
}

int64_t LinearSum::content() const {
  int64_t g = constant;
  for (const auto& term : terms) g = gcd(g, term.second);
  return g < 0 ? -g : g;
}

void LinearSum::fuse_div_mod() {
  for (size_t i = 0; i < terms.size(); ++i) {
    const auto* mod = terms[i].first.as<te::BinaryNode>();
    if (!mod || mod->kind != ExprKind::Mod || terms[i].second == 0) continue;
    const int64_t* c = te::as_const_int(mod->b);
    if (!c || *c <= 0) continue;
    int64_t k = terms[i].second, kc = 0;
    if (__builtin_mul_overflow(k, *c, &kc)) continue;
    for (size_t j = 0; j < terms.size(); ++j) {
      const auto* div = terms[j].first.as<te::BinaryNode>();
      if (!div || div->kind != ExprKind::Div || terms[j].second != kc) continue;
      if (!te::is_const_int(div->b, *c) || !te::structural_equal(div->a, mod->a)) continue;
      Expr x = mod->a;
      terms[i].second = 0;
      terms[j].second = 0;
      add(x, k);
      break;
    }
  }
}

Expr LinearSum::to_expr() const {
  auto term_expr = [&](const Expr& atom, int64_t coeff) {
    return coeff == 1 ? atom : raw_binary(ExprKind::Mul, atom, te::make_int(coeff, type));
  };
  int lead = -1;
  for (size_t i = 0; i < terms.size() && lead < 0; ++i)
    if (terms[i].second > 0) lead = static_cast<int>(i);
  Expr r;
  bool constant_done = false;
  if (lead >= 0) {
    r = term_expr(terms[lead].first, terms[lead].second);
  } else if (constant != 0) {
    r = te::make_int(constant, type);
    constant_done = true;
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    const auto& [atom, coeff] = terms[i];
    if (coeff == 0 || static_cast<int>(i) == lead) continue;
    if (!r.defined()) {
      r = term_expr(atom, coeff);  // every term negative and no constant: x*-1 - y
      continue;
    }
    r = coeff > 0 ? raw_binary(ExprKind::Add, r, term_expr(atom, coeff))
                  : raw_binary(ExprKind::Sub, r, term_expr(atom, -coeff));
  }
  if (!r.defined()) return te::make_int(constant, type);
  if (!constant_done && constant != 0)
    r = constant > 0 ? raw_binary(ExprKind::Add, r, te::make_int(constant, type))
                     : raw_binary(ExprKind::Sub, r, te::make_int(-constant, type));
  return r;
}

}  // namespace lathe::arith
