// The simplifier's traversal: dispatch to the operator families, constant
// folding, scoped variable facts, and the nodes with no rules of their own
// (variables, lets, loads, calls, reductions).
#include <cmath>

#include "te/expr_functor.h"
#include "tir/arith/linear_sum.h"
#include "tir/arith/simplifier.h"
#include "tir/arith/simplify.h"

namespace lathe::arith {

using te::ExprKind;

namespace {

// Rules are written so that each rewrite makes the expression smaller or more
// canonical; this bound only stops a mistaken rule from recursing forever.
constexpr int kMaxDepth = 256;

bool is_imm(const Expr& e) {
  return e.kind() == ExprKind::IntImm || e.kind() == ExprKind::FloatImm;
}

double imm_value(const Expr& e) {
  if (const auto* i = e.as<te::IntImmNode>()) return static_cast<double>(i->value);
  return e.as<te::FloatImmNode>()->value;
}

// A float constant of type t, rounded to t's precision as the target would.
Expr float_const(DataType t, double v) {
  if (t.bits == 32) v = static_cast<float>(v);
  return te::make_const(t, v);
}

}  // namespace

Simplifier::Simplifier(const BoundMap& bounds) : bounds_(bounds) {}

Expr Simplifier::mutate(const Expr& e) {
  if (!e.defined()) return e;
  switch (e.kind()) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
      return e;
    case ExprKind::Var:
      return visit_var(e);
    case ExprKind::Not:
      return make_not(mutate(e.as<te::NotNode>()->a));
    case ExprKind::Select:
      return visit_select(e.as<te::SelectNode>());
    case ExprKind::Cast:
      return make_cast(e.type(), mutate(e.as<te::CastNode>()->value));
    case ExprKind::Call: {
      const auto* n = e.as<te::CallNode>();
      std::vector<Expr> args;
      bool changed = false;
      for (const Expr& a : n->args) {
        args.push_back(mutate(a));
        changed |= !args.back().same_as(a);
      }
      const Expr& a0 = args[0];
      if (n->op == te::Intrinsic::Abs && a0.type().is_integer()) {
        if (const int64_t* c = te::as_const_int(a0))
          return te::make_int(*c < 0 ? -*c : *c, e.type());
        IntBounds b = bounds(a0);
        if (b.has_min && b.min >= 0) return a0;
      }
      if (const auto* f = a0.as<te::FloatImmNode>()) {
        switch (n->op) {
          case te::Intrinsic::Abs:
            return float_const(e.type(), std::fabs(f->value));
          case te::Intrinsic::Floor:
            return float_const(e.type(), std::floor(f->value));
          case te::Intrinsic::Ceil:
            return float_const(e.type(), std::ceil(f->value));
          default:
            break;
        }
      }
      return changed ? te::call(n->op, args) : e;
    }
    case ExprKind::ProducerLoad: {
      return te::map_load_indices(e.as<te::ProducerLoadNode>(), e,
                                  [this](const Expr& i) { return mutate(i); });
    }
    case ExprKind::Reduce:
      return visit_reduce(e.as<te::ReduceNode>(), e);
    case ExprKind::Load: {
      const auto* n = e.as<te::LoadNode>();
      Expr index = mutate(n->index);
      return index.same_as(n->index) ? e : te::load(n->type, n->buffer, index);
    }
    case ExprKind::Ramp: {
      const auto* n = e.as<te::RampNode>();
      return make_ramp(mutate(n->base), mutate(n->stride), n->lanes);
    }
    case ExprKind::Broadcast: {
      const auto* n = e.as<te::BroadcastNode>();
      return make_broadcast(mutate(n->value), n->lanes);
    }
    case ExprKind::Let:
      return visit_let(e.as<te::LetNode>());
    case ExprKind::And:
    case ExprKind::Or:
      return visit_logic(e.as<te::BinaryNode>());
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
      if (is_linear_type(e.type())) return visit_linear(e);
      [[fallthrough]];
    default: {
      const auto* n = e.as<te::BinaryNode>();
      return make_binary(e.kind(), mutate(n->a), mutate(n->b));
    }
  }
}

Expr Simplifier::visit_var(const Expr& e) {
  if (substitutions_.empty()) return e;
  auto it = substitutions_.find(Var(e));
  return it == substitutions_.end() ? e : it->second;
}

Expr Simplifier::visit_select(const te::SelectNode* n) {
  Expr cond = mutate(n->cond);
  if (const int64_t* c = te::as_const_int_lanes(cond))
    return mutate(*c ? n->true_value : n->false_value);
  // Each arm is simplified knowing which way the condition went.
  int pushed = push_facts(cond, true);
  Expr t = mutate(n->true_value);
  for (; pushed > 0; --pushed) pop_bounds();
  pushed = push_facts(cond, false);
  Expr f = mutate(n->false_value);
  for (; pushed > 0; --pushed) pop_bounds();
  return make_select(cond, t, f);
}

Expr Simplifier::visit_logic(const te::BinaryNode* n) {
  // b only matters when a is true (for and) or false (for or).
  Expr a = mutate(n->a);
  int pushed = push_facts(a, n->kind == ExprKind::And);
  Expr b = mutate(n->b);
  for (; pushed > 0; --pushed) pop_bounds();
  return make_binary(n->kind, a, b);
}

Expr Simplifier::visit_let(const te::LetNode* n) {
  Expr value = mutate(n->value);
  if (is_imm(value) || value.kind() == ExprKind::Var) {
    push_substitution(n->var, value);
    Expr body = mutate(n->body);
    pop_substitution();
    return body;
  }
  push_bounds(n->var, bounds(value));
  Expr body = mutate(n->body);
  pop_bounds();
  if (!te::uses_var(body, n->var)) return body;
  return te::let(n->var, value, body);
}

Expr Simplifier::visit_reduce(const te::ReduceNode* n, const Expr& e) {
  int pushed = 0;
  for (const te::IterVar& iv : n->axis) {
    if (!iv->dom.min.defined() || !iv->dom.extent.defined()) continue;
    Expr min = mutate(iv->dom.min);
    IntBounds lo = bounds(min);
    IntBounds hi =
        bounds(make_binary(ExprKind::Sub, make_binary(ExprKind::Add, min, mutate(iv->dom.extent)),
                           te::make_one(min.type())));
    push_bounds(iv.var(), IntBounds{lo.min, hi.max, lo.has_min, hi.has_max});
    ++pushed;
  }
  Expr source = mutate(n->source);
  Expr condition = mutate(n->condition);
  for (; pushed > 0; --pushed) pop_bounds();
  if (source.same_as(n->source) && condition.same_as(n->condition)) return e;
  return Expr(std::make_shared<const te::ReduceNode>(n->combiner, source, n->axis, condition));
}

Expr Simplifier::fold_float(ExprKind kind, const Expr& a, const Expr& b) {
  const double x = imm_value(a), y = imm_value(b);
  const DataType t = a.type();
  switch (kind) {
    case ExprKind::Add:
      return float_const(t, x + y);
    case ExprKind::Sub:
      return float_const(t, x - y);
    case ExprKind::Mul:
      return float_const(t, x * y);
    case ExprKind::Div:
      return y == 0 ? Expr() : float_const(t, x / y);
    case ExprKind::Min:
      return float_const(t, std::min(x, y));
    case ExprKind::Max:
      return float_const(t, std::max(x, y));
    case ExprKind::EQ:
      return te::make_const(DataType::Bool(), x == y);
    case ExprKind::NE:
      return te::make_const(DataType::Bool(), x != y);
    case ExprKind::LT:
      return te::make_const(DataType::Bool(), x < y);
    case ExprKind::LE:
      return te::make_const(DataType::Bool(), x <= y);
    case ExprKind::GT:
      return te::make_const(DataType::Bool(), x > y);
    case ExprKind::GE:
      return te::make_const(DataType::Bool(), x >= y);
    default:
      return Expr();
  }
}

Expr Simplifier::make_binary(ExprKind kind, Expr a, Expr b) {
  if (!(a.type() == b.type())) {
    // A rule may combine a constant with an operand of another width; let the
    // checked constructor coerce, then simplify what it built.
    Expr coerced = te::binary(kind, a, b);
    const auto* n = coerced.as<te::BinaryNode>();
    if (!n || !(n->a.type() == n->b.type())) return coerced;
    a = n->a;
    b = n->b;
  }
  if (te::as_const_int(a) && te::as_const_int(b)) return te::binary(kind, a, b);
  if (a.kind() == ExprKind::FloatImm && b.kind() == ExprKind::FloatImm) {
    if (Expr folded = fold_float(kind, a, b); folded.defined()) return folded;
  }
  Expr e = raw_binary(kind, a, b);
  if (depth_ >= kMaxDepth) return e;
  ++depth_;
  Expr r;
  switch (kind) {
    case ExprKind::Add:
      r = simplify_add(e, a, b);
      break;
    case ExprKind::Sub:
      r = simplify_sub(e, a, b);
      break;
    case ExprKind::Mul:
      r = simplify_mul(e, a, b);
      break;
    case ExprKind::Div:
      r = simplify_div(e, a, b);
      break;
    case ExprKind::Mod:
      r = simplify_mod(e, a, b);
      break;
    case ExprKind::Min:
    case ExprKind::Max:
      r = simplify_min_max(e, a, b);
      break;
    case ExprKind::And:
    case ExprKind::Or:
      r = simplify_and_or(e, a, b);
      break;
    default:
      r = simplify_cmp(e, a, b);
      break;
  }
  --depth_;
  return r;
}

void Simplifier::push_bounds(const Var& v, const IntBounds& b) {
  auto it = bounds_.find(v);
  if (it == bounds_.end()) {
    bound_stack_.push_back({v, {false, IntBounds()}});
    bounds_.emplace(v, b);
  } else {
    bound_stack_.push_back({v, {true, it->second}});
    it->second = b;
  }
  analyzer_.clear_cache();
}

void Simplifier::pop_bounds() {
  auto& [v, saved] = bound_stack_.back();
  if (saved.first)
    bounds_[v] = saved.second;
  else
    bounds_.erase(v);
  bound_stack_.pop_back();
  analyzer_.clear_cache();
}

void Simplifier::push_substitution(const Var& v, const Expr& value) {
  auto it = substitutions_.find(v);
  if (it == substitutions_.end()) {
    substitution_stack_.push_back({v, {false, Expr()}});
    substitutions_.emplace(v, value);
  } else {
    substitution_stack_.push_back({v, {true, it->second}});
    it->second = value;
  }
}

void Simplifier::pop_substitution() {
  auto& [v, saved] = substitution_stack_.back();
  if (saved.first)
    substitutions_[v] = saved.second;
  else
    substitutions_.erase(v);
  substitution_stack_.pop_back();
}

namespace {

// a k b read as b k' a.
ExprKind mirror_comparison(ExprKind k) {
  switch (k) {
    case ExprKind::LT:
      return ExprKind::GT;
    case ExprKind::LE:
      return ExprKind::GE;
    case ExprKind::GT:
      return ExprKind::LT;
    case ExprKind::GE:
      return ExprKind::LE;
    default:
      return k;
  }
}

}  // namespace

int Simplifier::push_facts(const Expr& cond, bool holds) {
  switch (cond.kind()) {
    case ExprKind::Not:
      return push_facts(cond.as<te::NotNode>()->a, !holds);
    case ExprKind::And:
    case ExprKind::Or: {
      // Only a conjunction that holds (or a disjunction that fails) gives
      // facts about both sides.
      if (holds != (cond.kind() == ExprKind::And)) return 0;
      const auto* n = cond.as<te::BinaryNode>();
      int pushed = push_facts(n->a, holds);
      return pushed + push_facts(n->b, holds);
    }
    default:
      break;
  }
  if (!te::is_comparison(cond.kind()) || !cond.type().is_scalar()) return 0;
  const auto* n = cond.as<te::BinaryNode>();
  if (!n->a.type().is_integer()) return 0;
  ExprKind k = holds ? cond.kind() : negate_comparison(cond.kind());
  Expr var = n->a, other = n->b;
  if (var.kind() != ExprKind::Var) {
    std::swap(var, other);
    k = mirror_comparison(k);
  }
  if (var.kind() != ExprKind::Var) return 0;
  IntBounds o = bounds(other), fact;
  switch (k) {
    case ExprKind::LT:
      if (!o.has_max) return 0;
      fact = IntBounds::at_most(o.max - 1);
      break;
    case ExprKind::LE:
      if (!o.has_max) return 0;
      fact = IntBounds::at_most(o.max);
      break;
    case ExprKind::GT:
      if (!o.has_min) return 0;
      fact = IntBounds::at_least(o.min + 1);
      break;
    case ExprKind::GE:
      if (!o.has_min) return 0;
      fact = IntBounds::at_least(o.min);
      break;
    case ExprKind::EQ:
      fact = o;
      break;
    default:
      return 0;
  }
  IntBounds current = bounds(var);
  IntBounds narrowed = bounds_intersect(current, fact);
  if (narrowed == current) return 0;
  push_bounds(Var(var), narrowed);
  return 1;
}

Expr simplify(const Expr& e, const BoundMap& bounds) {
  if (!e.defined()) return e;
  Simplifier s(bounds);
  Expr r = s.mutate(e);
  return te::structural_equal(r, e) ? e : r;
}

}  // namespace lathe::arith
