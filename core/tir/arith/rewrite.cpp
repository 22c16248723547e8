// Matching and instantiating rewrite patterns.
#include "tir/arith/rewrite.h"

#include "support/error.h"
#include "te/expr_functor.h"
#include "tir/arith/simplifier.h"

namespace lathe::arith::rewrite {

using te::ExprKind;

namespace {

Pattern make_node(PatternKind kind, std::vector<Pattern> children = {},
                  ExprKind op = ExprKind::Add) {
  auto n = std::make_shared<PatternNode>();
  n->kind = kind;
  n->op = op;
  n->children = std::move(children);
  return Pattern(std::move(n));
}

Pattern make_binary(ExprKind op, const Pattern& a, const Pattern& b) {
  return make_node(PatternKind::Binary, {a, b}, op);
}

bool is_scalar_imm(const Expr& e) {
  return e.kind() == ExprKind::IntImm || e.kind() == ExprKind::FloatImm;
}

bool matches_literal(const Expr& e, int64_t value) {
  if (const auto* i = e.as<te::IntImmNode>()) return i->value == value;
  if (const auto* f = e.as<te::FloatImmNode>()) return f->value == static_cast<double>(value);
  if (const auto* b = e.as<te::BroadcastNode>()) return matches_literal(b->value, value);
  return false;
}

bool match_lanes(const PatternNode* p, int lanes, Bindings& b) {
  if (p->kind == PatternKind::Literal) return p->literal == lanes;
  if (b.lanes != 0) return b.lanes == lanes;
  b.lanes = lanes;
  return true;
}

int build_lanes(const PatternNode* p, const Bindings& b) {
  return p->kind == PatternKind::Literal ? static_cast<int>(p->literal) : b.lanes;
}

// Builds a pair of operands; a literal takes the type of the other operand.
std::pair<Expr, Expr> build_pair(const Pattern& pa, const Pattern& pb, const Bindings& b,
                                 Simplifier& s, te::DataType fallback) {
  const bool lit_a = pa.get()->kind == PatternKind::Literal;
  const bool lit_b = pb.get()->kind == PatternKind::Literal;
  if (lit_a && lit_b)
    return {te::make_const(fallback, double(pa.get()->literal)),
            te::make_const(fallback, double(pb.get()->literal))};
  if (lit_a) {
    Expr eb = build(pb.get(), b, s, fallback);
    return {te::make_const(eb.type(), double(pa.get()->literal)), eb};
  }
  Expr ea = build(pa.get(), b, s, fallback);
  if (lit_b) return {ea, te::make_const(ea.type(), double(pb.get()->literal))};
  return {ea, build(pb.get(), b, s, fallback)};
}

}  // namespace

Pattern::Pattern(int literal) {
  auto n = std::make_shared<PatternNode>();
  n->kind = PatternKind::Literal;
  n->literal = literal;
  node_ = std::move(n);
}

Pattern wild(int slot) {
  auto n = std::make_shared<PatternNode>();
  n->kind = PatternKind::Wild;
  n->slot = slot;
  return Pattern(std::move(n));
}

Pattern const_wild(int slot) {
  auto n = std::make_shared<PatternNode>();
  n->kind = PatternKind::ConstWild;
  n->slot = slot;
  return Pattern(std::move(n));
}

Pattern lanes_wild() {
  return make_node(PatternKind::Lanes);
}

Pattern operator+(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::Add, a, b);
}
Pattern operator-(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::Sub, a, b);
}
Pattern operator*(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::Mul, a, b);
}
Pattern operator/(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::Div, a, b);
}
Pattern operator%(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::Mod, a, b);
}
Pattern operator<(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::LT, a, b);
}
Pattern operator<=(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::LE, a, b);
}
Pattern operator>(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::GT, a, b);
}
Pattern operator>=(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::GE, a, b);
}
Pattern operator==(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::EQ, a, b);
}
Pattern operator!=(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::NE, a, b);
}
Pattern operator&&(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::And, a, b);
}
Pattern operator||(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::Or, a, b);
}
Pattern operator!(const Pattern& a) {
  return make_node(PatternKind::Not, {a});
}
Pattern min(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::Min, a, b);
}
Pattern max(const Pattern& a, const Pattern& b) {
  return make_binary(ExprKind::Max, a, b);
}
Pattern select(const Pattern& c, const Pattern& t, const Pattern& f) {
  return make_node(PatternKind::Select, {c, t, f});
}
Pattern ramp(const Pattern& base, const Pattern& stride, const Pattern& lanes) {
  return make_node(PatternKind::Ramp, {base, stride, lanes});
}
Pattern broadcast(const Pattern& value, const Pattern& lanes) {
  return make_node(PatternKind::Broadcast, {value, lanes});
}

bool match(const PatternNode* p, const Expr& e, Bindings& b) {
  switch (p->kind) {
    case PatternKind::Wild: {
      Expr& slot = b.wild[p->slot];
      if (slot.defined()) return te::structural_equal(slot, e);
      slot = e;
      return true;
    }
    case PatternKind::ConstWild: {
      if (!is_scalar_imm(e)) return false;
      Expr& slot = b.consts[p->slot];
      if (slot.defined()) return te::structural_equal(slot, e);
      slot = e;
      return true;
    }
    case PatternKind::Literal:
      return matches_literal(e, p->literal);
    case PatternKind::Lanes:
      return false;  // only meaningful as the lanes of a ramp or broadcast
    case PatternKind::Binary: {
      if (e.kind() != p->op) return false;
      const auto* n = e.as<te::BinaryNode>();
      return match(p->children[0].get(), n->a, b) && match(p->children[1].get(), n->b, b);
    }
    case PatternKind::Not:
      return e.kind() == ExprKind::Not && match(p->children[0].get(), e.as<te::NotNode>()->a, b);
    case PatternKind::Select: {
      const auto* n = e.as<te::SelectNode>();
      return n && match(p->children[0].get(), n->cond, b) &&
             match(p->children[1].get(), n->true_value, b) &&
             match(p->children[2].get(), n->false_value, b);
    }
    case PatternKind::Ramp: {
      const auto* n = e.as<te::RampNode>();
      return n && match_lanes(p->children[2].get(), n->lanes, b) &&
             match(p->children[0].get(), n->base, b) && match(p->children[1].get(), n->stride, b);
    }
    case PatternKind::Broadcast: {
      const auto* n = e.as<te::BroadcastNode>();
      return n && match_lanes(p->children[1].get(), n->lanes, b) &&
             match(p->children[0].get(), n->value, b);
    }
  }
  return false;
}

Expr build(const PatternNode* p, const Bindings& b, Simplifier& s, te::DataType root_type) {
  switch (p->kind) {
    case PatternKind::Wild:
      LATHE_CHECK(b.wild[p->slot].defined(), "rewrite: unbound wildcard in a replacement");
      return b.wild[p->slot];
    case PatternKind::ConstWild:
      LATHE_CHECK(b.consts[p->slot].defined(), "rewrite: unbound constant in a replacement");
      return b.consts[p->slot];
    case PatternKind::Literal:
      return te::make_const(root_type, double(p->literal));
    case PatternKind::Lanes:
      return te::make_int(b.lanes);
    case PatternKind::Binary: {
      te::DataType operand_type = te::is_comparison(p->op) ? te::DataType::Int(32) : root_type;
      auto [a, c] = build_pair(p->children[0], p->children[1], b, s, operand_type);
      return s.make_binary(p->op, a, c);
    }
    case PatternKind::Not:
      return s.make_not(build(p->children[0].get(), b, s, root_type));
    case PatternKind::Select: {
      Expr cond = build(p->children[0].get(), b, s, te::DataType::Bool());
      auto [t, f] = build_pair(p->children[1], p->children[2], b, s, root_type);
      return s.make_select(cond, t, f);
    }
    case PatternKind::Ramp: {
      auto [base, stride] =
          build_pair(p->children[0], p->children[1], b, s, root_type.element_of());
      return s.make_ramp(base, stride, build_lanes(p->children[2].get(), b));
    }
    case PatternKind::Broadcast:
      return s.make_broadcast(build(p->children[0].get(), b, s, root_type.element_of()),
                              build_lanes(p->children[1].get(), b));
  }
  return Expr();
}

Expr RuleSet::apply(const Expr& e, Simplifier& s) const {
  for (const Rule& rule : rules_) {
    const PatternNode* before = rule.before.get();
    // Most rules fail on the root's kind; check it before building bindings.
    if (before->kind == PatternKind::Binary && before->op != e.kind()) continue;
    Bindings b;
    if (!match(before, e, b)) continue;
    if (rule.predicate.defined()) {
      Expr holds = build(rule.predicate.get(), b, s, te::DataType::Bool());
      if (!te::is_const_int(holds, 1)) continue;
    }
    return build(rule.after.get(), b, s, e.type());
  }
  return Expr();
}

}  // namespace lathe::arith::rewrite
