#include "te/expr_functor.h"

#include "support/error.h"

namespace lathe::te {

void visit_expr(const Expr& e, const std::function<void(const Expr&)>& f) {
  if (!e.defined()) return;
  f(e);
  switch (e.kind()) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::Var:
      return;
    case ExprKind::Not:
      visit_expr(e.as<NotNode>()->a, f);
      return;
    case ExprKind::Select: {
      const auto* n = e.as<SelectNode>();
      visit_expr(n->cond, f);
      visit_expr(n->true_value, f);
      visit_expr(n->false_value, f);
      return;
    }
    case ExprKind::Cast:
      visit_expr(e.as<CastNode>()->value, f);
      return;
    case ExprKind::Call:
      for (const Expr& a : e.as<CallNode>()->args) visit_expr(a, f);
      return;
    case ExprKind::ProducerLoad:
      for (const Expr& i : e.as<ProducerLoadNode>()->indices) visit_expr(i, f);
      return;
    case ExprKind::Reduce: {
      const auto* n = e.as<ReduceNode>();
      visit_expr(n->source, f);
      visit_expr(n->condition, f);
      return;
    }
    case ExprKind::Load: {
      const auto* n = e.as<LoadNode>();
      visit_expr(n->buffer, f);
      visit_expr(n->index, f);
      return;
    }
    case ExprKind::Ramp: {
      const auto* n = e.as<RampNode>();
      visit_expr(n->base, f);
      visit_expr(n->stride, f);
      return;
    }
    case ExprKind::Broadcast:
      visit_expr(e.as<BroadcastNode>()->value, f);
      return;
    case ExprKind::Let: {
      const auto* n = e.as<LetNode>();
      visit_expr(n->var, f);
      visit_expr(n->value, f);
      visit_expr(n->body, f);
      return;
    }
    default: {
      const auto* n = e.as<BinaryNode>();
      visit_expr(n->a, f);
      visit_expr(n->b, f);
      return;
    }
  }
}

Expr ExprMutator::mutate(const Expr& e) {
  if (!e.defined()) return e;
  switch (e.kind()) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
      return visit_imm(e);
    case ExprKind::Var:
      return visit_var(e);
    case ExprKind::Not:
      return visit_not(e.as<NotNode>(), e);
    case ExprKind::Select:
      return visit_select(e.as<SelectNode>(), e);
    case ExprKind::Cast:
      return visit_cast(e.as<CastNode>(), e);
    case ExprKind::Call:
      return visit_call(e.as<CallNode>(), e);
    case ExprKind::ProducerLoad:
      return visit_producer_load(e.as<ProducerLoadNode>(), e);
    case ExprKind::Reduce:
      return visit_reduce(e.as<ReduceNode>(), e);
    case ExprKind::Load:
      return visit_load(e.as<LoadNode>(), e);
    case ExprKind::Ramp:
      return visit_ramp(e.as<RampNode>(), e);
    case ExprKind::Broadcast:
      return visit_broadcast(e.as<BroadcastNode>(), e);
    case ExprKind::Let:
      return visit_let(e.as<LetNode>(), e);
    default:
      return visit_binary(e.as<BinaryNode>(), e);
  }
}

Expr ExprMutator::visit_binary(const BinaryNode* n, const Expr& e) {
  Expr a = mutate(n->a), b = mutate(n->b);
  if (a.same_as(n->a) && b.same_as(n->b)) return e;
  return binary(n->kind, a, b);
}

Expr ExprMutator::visit_not(const NotNode* n, const Expr& e) {
  Expr a = mutate(n->a);
  return a.same_as(n->a) ? e : logical_not(a);
}

Expr ExprMutator::visit_select(const SelectNode* n, const Expr& e) {
  Expr c = mutate(n->cond), t = mutate(n->true_value), f = mutate(n->false_value);
  if (c.same_as(n->cond) && t.same_as(n->true_value) && f.same_as(n->false_value)) return e;
  return select(c, t, f);
}

Expr ExprMutator::visit_cast(const CastNode* n, const Expr& e) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? e : cast(n->type, v);
}

Expr ExprMutator::visit_call(const CallNode* n, const Expr& e) {
  std::vector<Expr> args;
  bool changed = false;
  for (const Expr& a : n->args) {
    args.push_back(mutate(a));
    changed |= !args.back().same_as(a);
  }
  return changed ? call(n->op, args) : e;
}

Expr map_load_indices(const ProducerLoadNode* n, const Expr& e,
                      const std::function<Expr(const Expr&)>& f) {
  std::vector<Expr> indices;
  bool changed = false;
  for (const Expr& i : n->indices) {
    indices.push_back(f(i));
    changed |= !indices.back().same_as(i);
  }
  if (!changed) return e;
  return Expr(std::make_shared<const ProducerLoadNode>(n->type, n->producer, std::move(indices)));
}

Expr ExprMutator::visit_producer_load(const ProducerLoadNode* n, const Expr& e) {
  return map_load_indices(n, e, [this](const Expr& i) { return mutate(i); });
}

Expr ExprMutator::visit_reduce(const ReduceNode* n, const Expr& e) {
  Expr s = mutate(n->source), c = mutate(n->condition);
  if (s.same_as(n->source) && c.same_as(n->condition)) return e;
  return Expr(std::make_shared<const ReduceNode>(n->combiner, s, n->axis, c));
}

Expr ExprMutator::visit_load(const LoadNode* n, const Expr& e) {
  Expr i = mutate(n->index);
  return i.same_as(n->index) ? e : load(n->type, n->buffer, i);
}

Expr ExprMutator::visit_ramp(const RampNode* n, const Expr& e) {
  Expr b = mutate(n->base), s = mutate(n->stride);
  if (b.same_as(n->base) && s.same_as(n->stride)) return e;
  return ramp(b, s, n->lanes);
}

Expr ExprMutator::visit_broadcast(const BroadcastNode* n, const Expr& e) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? e : broadcast(v, n->lanes);
}

Expr ExprMutator::visit_let(const LetNode* n, const Expr& e) {
  Expr v = mutate(n->value), b = mutate(n->body);
  if (v.same_as(n->value) && b.same_as(n->body)) return e;
  return let(n->var, v, b);
}

namespace {

class Substituter : public ExprMutator {
 public:
  explicit Substituter(const VarMap<Expr>& map) : map_(map) {}

 protected:
  Expr visit_var(const Expr& e) override {
    auto it = map_.find(Var(e));
    return it == map_.end() ? e : it->second;
  }

 private:
  const VarMap<Expr>& map_;
};

}  // namespace

Expr substitute(const Expr& e, const VarMap<Expr>& map) {
  if (map.empty()) return e;
  return Substituter(map).mutate(e);
}

bool uses_var(const Expr& e, const Var& v) {
  bool found = false;
  visit_expr(e, [&](const Expr& x) { found |= x.same_as(v); });
  return found;
}

bool structural_equal(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a.kind() != b.kind() || !(a.type() == b.type())) return false;
  switch (a.kind()) {
    case ExprKind::IntImm:
      return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case ExprKind::FloatImm:
      return a.as<FloatImmNode>()->value == b.as<FloatImmNode>()->value;
    case ExprKind::Var:
      return false;  // distinct nodes are distinct variables
    case ExprKind::Not:
      return structural_equal(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case ExprKind::Select: {
      const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      return structural_equal(x->cond, y->cond) && structural_equal(x->true_value, y->true_value) &&
             structural_equal(x->false_value, y->false_value);
    }
    case ExprKind::Cast:
      return structural_equal(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::Call: {
      const auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      if (x->op != y->op) return false;
      for (size_t i = 0; i < x->args.size(); ++i)
        if (!structural_equal(x->args[i], y->args[i])) return false;
      return true;
    }
    case ExprKind::ProducerLoad: {
      const auto *x = a.as<ProducerLoadNode>(), *y = b.as<ProducerLoadNode>();
      if (!x->producer.same_as(y->producer)) return false;
      for (size_t i = 0; i < x->indices.size(); ++i)
        if (!structural_equal(x->indices[i], y->indices[i])) return false;
      return true;
    }
    case ExprKind::Reduce: {
      const auto *x = a.as<ReduceNode>(), *y = b.as<ReduceNode>();
      if (x->combiner != y->combiner || x->axis.size() != y->axis.size()) return false;
      for (size_t i = 0; i < x->axis.size(); ++i)
        if (!x->axis[i].same_as(y->axis[i])) return false;
      return structural_equal(x->source, y->source) &&
             (x->condition.defined() == y->condition.defined()) &&
             (!x->condition.defined() || structural_equal(x->condition, y->condition));
    }
    case ExprKind::Load: {
      const auto *x = a.as<LoadNode>(), *y = b.as<LoadNode>();
      return x->buffer.same_as(y->buffer) && structural_equal(x->index, y->index);
    }
    case ExprKind::Ramp: {
      const auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
      return x->lanes == y->lanes && structural_equal(x->base, y->base) &&
             structural_equal(x->stride, y->stride);
    }
    case ExprKind::Broadcast: {
      const auto *x = a.as<BroadcastNode>(), *y = b.as<BroadcastNode>();
      return x->lanes == y->lanes && structural_equal(x->value, y->value);
    }
    case ExprKind::Let: {
      const auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
      return x->var.same_as(y->var) && structural_equal(x->value, y->value) &&
             structural_equal(x->body, y->body);
    }
    default: {
      const auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
      return structural_equal(x->a, y->a) && structural_equal(x->b, y->b);
    }
  }
}

}  // namespace lathe::te
