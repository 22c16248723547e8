// Statement simplification: every expression through the expression
// simplifier, knowing the ranges of the enclosing loops, lets and guards;
// branches, loops and lets that those make trivial are removed.
#include "te/expr_functor.h"
#include "tir/arith/simplifier.h"
#include "tir/arith/simplify.h"
#include "tir/stmt_functor.h"

namespace lathe::arith {

using te::ExprKind;
using namespace tir;

namespace {

bool is_no_op(const Stmt& s) {
  if (!s.defined()) return true;
  if (const auto* e = s.as<EvaluateNode>()) return e->value.kind() == ExprKind::IntImm;
  if (const auto* q = s.as<SeqNode>()) return q->seq.empty();
  return false;
}

Stmt no_op() {
  return make_evaluate(te::make_int(0));
}

class StmtSimplifier : public StmtMutator {
 public:
  explicit StmtSimplifier(const BoundMap& bounds) : simplifier_(bounds) {}

  Expr mutate_expr(const Expr& e) override {
    if (!e.defined()) return e;
    Expr r = simplifier_.mutate(e);
    // Keep the original node when nothing changed, so unchanged statements stay shared.
    return te::structural_equal(r, e) ? e : r;
  }

 protected:
  Stmt visit_for(const ForNode* n, const Stmt& s) override {
    Expr min = mutate_expr(n->min), extent = mutate_expr(n->extent);
    IntBounds ext = simplifier_.bounds(extent);
    if (ext.has_max && ext.max <= 0) return no_op();
    if (ext.is_single() && ext.min == 1 && n->kind != ForKind::ThreadBinding) {
      simplifier_.push_substitution(n->loop_var, min);
      Stmt body = mutate(n->body);
      simplifier_.pop_substitution();
      return body;
    }
    IntBounds lo = simplifier_.bounds(min);
    // The last value as one expression, so that min + extent cancels (jo*8 + 8 - 1).
    Expr last =
        simplifier_.make_binary(ExprKind::Sub, simplifier_.make_binary(ExprKind::Add, min, extent),
                                te::make_one(min.type()));
    IntBounds hi = simplifier_.bounds(last);
    simplifier_.push_bounds(n->loop_var, IntBounds{lo.min, hi.max, lo.has_min, hi.has_max});
    Stmt body = mutate(n->body);
    simplifier_.pop_bounds();
    if (is_no_op(body)) return no_op();
    if (min.same_as(n->min) && extent.same_as(n->extent) && body.same_as(n->body)) return s;
    return make_for(n->loop_var, min, extent, n->kind, body, n->thread_tag);
  }

  Stmt visit_if(const IfThenElseNode* n, const Stmt& s) override {
    Expr cond = mutate_expr(n->condition);
    if (const int64_t* c = te::as_const_int(cond)) {
      if (*c) return mutate(n->then_case);
      return n->else_case.defined() ? mutate(n->else_case) : no_op();
    }
    int pushed = simplifier_.push_facts(cond, true);
    Stmt then_case = mutate(n->then_case);
    for (; pushed > 0; --pushed) simplifier_.pop_bounds();
    Stmt else_case;
    if (n->else_case.defined()) {
      pushed = simplifier_.push_facts(cond, false);
      else_case = mutate(n->else_case);
      for (; pushed > 0; --pushed) simplifier_.pop_bounds();
      if (is_no_op(else_case)) else_case = Stmt();
    }
    if (is_no_op(then_case)) {
      if (!else_case.defined()) return no_op();
      return make_if(simplifier_.make_not(cond), else_case);
    }
    if (cond.same_as(n->condition) && then_case.same_as(n->then_case) &&
        else_case.same_as(n->else_case))
      return s;
    return make_if(cond, then_case, else_case);
  }

  Stmt visit_let(const LetStmtNode* n, const Stmt& s) override {
    Expr value = mutate_expr(n->value);
    if (value.kind() == ExprKind::IntImm || value.kind() == ExprKind::FloatImm ||
        value.kind() == ExprKind::Var) {
      simplifier_.push_substitution(n->var, value);
      Stmt body = mutate(n->body);
      simplifier_.pop_substitution();
      return body;
    }
    simplifier_.push_bounds(n->var, simplifier_.bounds(value));
    Stmt body = mutate(n->body);
    simplifier_.pop_bounds();
    if (value.same_as(n->value) && body.same_as(n->body)) return s;
    return make_let(n->var, value, body);
  }

  Stmt visit_seq(const SeqNode* n, const Stmt& s) override {
    bool changed = false;
    std::vector<Stmt> parts;
    for (const Stmt& c : n->seq) {
      Stmt m = mutate(c);
      changed |= !m.same_as(c);
      if (is_no_op(m)) {
        changed = true;
        continue;
      }
      parts.push_back(std::move(m));
    }
    if (!changed) return s;
    return parts.empty() ? no_op() : make_seq(std::move(parts));
  }

  Stmt visit_allocate(const AllocateNode* n, const Stmt& s) override {
    Stmt r = StmtMutator::visit_allocate(n, s);
    return is_no_op(r.as<AllocateNode>()->body) ? no_op() : r;
  }

  Stmt visit_producer_realize(const ProducerRealizeNode* n, const Stmt& s) override {
    Stmt r = StmtMutator::visit_producer_realize(n, s);
    return is_no_op(r.as<ProducerRealizeNode>()->body) ? no_op() : r;
  }

  Stmt visit_attr(const AttrStmtNode* n, const Stmt& s) override {
    Stmt r = StmtMutator::visit_attr(n, s);
    return is_no_op(r.as<AttrStmtNode>()->body) ? no_op() : r;
  }

 private:
  Simplifier simplifier_;
};

}  // namespace

Stmt simplify(const Stmt& s, const BoundMap& bounds) {
  if (!s.defined()) return s;
  return StmtSimplifier(bounds).mutate(s);
}

}  // namespace lathe::arith
